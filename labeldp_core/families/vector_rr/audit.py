"""Vector randomized response's audit case and its negative control: one label, 0 vs 1.

Replacing label 0 by 1 changes bits 0 and 1 of the one-hot vector and no other. With keep
probability p and flip probability q = 1 - p per bit, the log-likelihood ratio of a released
vector b is 2 ln(p/q) (b_0 - b_1), so the score ``b_0 - b_1`` in {-1, 0, 1} orders outputs by
their privacy loss (Neyman-Pearson): its top event (b_0 = 1, b_1 = 0) has probability p^2 under
label 0 and q^2 under label 1, a ratio of exactly e^ε. The control is the natural bug: each bit
flipped at ε instead of ε/2 (forgetting that replace-one changes two bits), which spends 2ε.
"""

import numpy as np

from labeldp_core.families.vector_rr.release import vector_randomized_response
from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, LABEL_PAIR, overspent

__all__ = ["vector_case", "vector_per_bit_epsilon_control"]


def _bits_case(name: str, run_at: float, claimed: float, is_control: bool = False) -> AuditCase:
    """Neighbours: one label 0 vs 1, released at ``run_at``; the score is b_0 - b_1."""

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        labels = np.full(trials, which)
        bits = vector_randomized_response(labels, run_at, AUDIT_CLASSES, rng).astype(np.float64)
        return bits[:, 0] - bits[:, 1]

    return AuditCase(name, claimed, 0.0, LABEL_PAIR, sample, is_control)


def vector_case(epsilon: float) -> AuditCase:
    """Vector randomized response at the claimed epsilon (each bit at ε/2)."""
    return _bits_case("vector-rr", epsilon, epsilon)


def vector_per_bit_epsilon_control(epsilon: float) -> AuditCase:
    """Each bit flipped at ε, not ε/2, while claiming ε: spends 2ε, must be flagged."""
    return _bits_case(
        "vector-rr (control: each bit at ε, claims ε)",
        overspent(epsilon, 2),
        epsilon,
        is_control=True,
    )
