"""Laplace on softmax outputs: its audit case and control, two output vectors at L1 distance 2.

The shared reasoning (scores, controls) is in :mod:`labeldp_core.release_audit.pairs`.
"""

import numpy as np

from labeldp_core.families.noisy_outputs.release import laplace_outputs
from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, SCORE_DIGITS, overspent

__all__ = ["SOFTMAX_PAIR", "softmax_laplace_case", "softmax_sensitivity_one_control"]

#: Two probability vectors with disjoint supports: L1 distance 2, the largest there is.
SOFTMAX_PAIR = (
    np.array([0.6, 0.4, 0, 0, 0, 0, 0, 0, 0, 0]),
    np.array([0, 0, 0.7, 0.3, 0, 0, 0, 0, 0, 0]),
)


def _softmax_score(noisy: np.ndarray) -> np.ndarray:
    """The log-likelihood ratio of :data:`SOFTMAX_PAIR`, times b: sum of |o - q| - |o - p|."""
    p, q = SOFTMAX_PAIR
    support = (p > 0) | (q > 0)
    block = noisy[:, support]
    score = (np.abs(block - q[support]) - np.abs(block - p[support])).sum(axis=1)
    return np.round(score, SCORE_DIGITS)


def _softmax_case(name: str, release_epsilon: float, claimed: float, control: bool) -> AuditCase:
    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        rows = np.broadcast_to(SOFTMAX_PAIR[which], (trials, AUDIT_CLASSES))
        return _softmax_score(laplace_outputs(rows, release_epsilon, rng))

    neighbours = "one output vector: two probability vectors at L1 distance 2 (local DP)"
    return AuditCase(name, claimed, 0.0, neighbours, sample, control)


def softmax_laplace_case(epsilon: float) -> AuditCase:
    """Laplace on softmax outputs, scale 2/ε; the largest loss has probability 1/16 here."""
    return _softmax_case("softmax-laplace", epsilon, epsilon, control=False)


def softmax_sensitivity_one_control(epsilon: float) -> AuditCase:
    """Softmax outputs with noise for sensitivity 1 (scale 1/ε), the slip the page warns about."""
    return _softmax_case(
        "softmax-laplace (control: scale 1/ε)", overspent(epsilon, 2), epsilon, control=True
    )
