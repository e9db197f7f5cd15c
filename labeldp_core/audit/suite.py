"""Auditing a mechanism: each of its cases with its own random stream, so any one can be re-run.

Case ``i`` of a mechanism draws from ``numpy.random.default_rng([seed, i])``: the command line,
which audits every case in turn, and the app, which caches each case on its own, find the same
bounds for the same seed.
"""

import numpy as np

from labeldp_core.audit.cases import audit_cases
from labeldp_core.audit.engine import AuditResult, run_audit
from labeldp_core.errors import InvalidInputError

__all__ = ["audit_case", "audit_mechanism"]


def audit_case(
    mechanism: str, epsilon: float, index: int, trials: int, seed: int = 0, alpha: float = 0.05
) -> AuditResult:
    """Audit case ``index`` of :func:`audit_cases` (``mechanism``, ``epsilon``)."""
    cases = audit_cases(mechanism, epsilon)
    if not 0 <= index < len(cases):
        raise InvalidInputError(
            f"'{mechanism}' has {len(cases)} audit cases; index must be in 0..{len(cases) - 1}"
        )
    return run_audit(cases[index], trials, np.random.default_rng([seed, index]), alpha)


def audit_mechanism(
    mechanism: str, epsilon: float, trials: int, seed: int = 0, alpha: float = 0.05
) -> list[AuditResult]:
    """Audit every case of ``mechanism`` (its cases, then its negative control)."""
    count = len(audit_cases(mechanism, epsilon))
    return [audit_case(mechanism, epsilon, i, trials, seed, alpha) for i in range(count)]
