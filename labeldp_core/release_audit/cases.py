"""The audit cases of every registered mechanism: its release on neighbouring inputs, and controls.

A case builder takes the claimed epsilon and returns an :class:`AuditCase`. Each family declares
its mechanisms' cases (in its folder's ``audit.py``); ``CASES`` holds one per mechanism id,
``VARIANTS`` further real cases of the same mechanism (PATE's GNMax next to LNMax), and
``CONTROLS`` deliberately broken versions that must be flagged as violating their claim, all
derived from the registered families (:mod:`labeldp_core.registry`).
"""

from labeldp_core.base.validation import check_epsilon
from labeldp_core.errors import InvalidInputError
from labeldp_core.registry import CASES, CONTROLS, VARIANTS
from labeldp_core.release_audit.engine import AuditCase

__all__ = ["CASES", "CONTROLS", "VARIANTS", "audit_cases"]


def audit_cases(mechanism: str, epsilon: float) -> list[AuditCase]:
    """The cases of ``mechanism`` (its case, then any variants) followed by its controls."""
    epsilon = check_epsilon(epsilon)
    if mechanism not in CASES:
        known = ", ".join(CASES)
        raise InvalidInputError(f"no audit for mechanism '{mechanism}'; audits exist for: {known}")
    builders = [CASES[mechanism], *VARIANTS.get(mechanism, ()), *CONTROLS.get(mechanism, ())]
    return [build(epsilon) for build in builders]
