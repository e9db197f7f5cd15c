"""Audit cases: each mechanism's release step on neighbouring inputs, and negative controls.

A case builder takes the claimed epsilon and returns an :class:`AuditCase`. Controls are
deliberately broken versions that must be flagged as violating their claim.
"""

from collections.abc import Callable

import numpy as np

from labeldp_core.audit.engine import AuditCase
from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import randomized_response
from labeldp_core.validation import check_epsilon

__all__ = ["CASES", "CONTROLS", "audit_cases"]

AUDIT_CLASSES = 10


def _labels_case(name: str, release, claimed: float, is_control: bool = False) -> AuditCase:
    """Neighbours: one label equal to 0 vs equal to 1; the score is 'released label is 0'."""

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        released = release(np.full(trials, which), rng)
        return (released == 0).astype(np.float64)

    return AuditCase(name, claimed, 0.0, "one label: 0 vs 1 (replace-one)", sample, is_control)


def rr_case(epsilon: float) -> AuditCase:
    """K-ary randomized response at the claimed epsilon."""
    return _labels_case(
        "rr", lambda labels, rng: randomized_response(labels, epsilon, AUDIT_CLASSES, rng), epsilon
    )


def rr_overspending_control(epsilon: float) -> AuditCase:
    """Randomized response that runs at 2 epsilon while claiming epsilon: must be flagged."""
    return _labels_case(
        "rr (control: runs at 2ε, claims ε)",
        lambda labels, rng: randomized_response(labels, 2 * epsilon, AUDIT_CLASSES, rng),
        epsilon,
        is_control=True,
    )


#: Audit case builders by mechanism id.
CASES: dict[str, Callable[[float], AuditCase]] = {"rr": rr_case}
#: Negative controls by the mechanism id they accompany.
CONTROLS: dict[str, Callable[[float], AuditCase]] = {"rr": rr_overspending_control}


def audit_cases(mechanism: str, epsilon: float) -> list[AuditCase]:
    """The case of ``mechanism`` followed by its negative control, if it has one."""
    epsilon = check_epsilon(epsilon)
    if mechanism not in CASES:
        known = ", ".join(CASES)
        raise InvalidInputError(f"no audit for mechanism '{mechanism}'; audits exist for: {known}")
    cases = [CASES[mechanism](epsilon)]
    if mechanism in CONTROLS:
        cases.append(CONTROLS[mechanism](epsilon))
    return cases
