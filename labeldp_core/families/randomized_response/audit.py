"""Randomized response's audit case and its negative control: one label, 0 vs 1.

The shared reasoning (scores, controls) is in :mod:`labeldp_core.release_audit.pairs`.
"""

from labeldp_core.noise.randomized_response import randomized_response
from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, labels_case, overspent

__all__ = ["rr_case", "rr_overspending_control"]


def rr_case(epsilon: float) -> AuditCase:
    """K-ary randomized response at the claimed epsilon."""
    return labels_case(
        "rr", lambda labels, rng: randomized_response(labels, epsilon, AUDIT_CLASSES, rng), epsilon
    )


def rr_overspending_control(epsilon: float) -> AuditCase:
    """Randomized response that runs at 2 epsilon while claiming epsilon: must be flagged."""
    return labels_case(
        "rr (control: runs at 2ε, claims ε)",
        lambda labels, rng: randomized_response(labels, overspent(epsilon, 2), AUDIT_CLASSES, rng),
        epsilon,
        is_control=True,
    )
