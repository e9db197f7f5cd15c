"""The release audits of the registered mechanisms: their cases, each with its own random stream.

A family declares its mechanisms' cases in its folder's ``audit.py``; ``CASES`` holds one per
mechanism id, ``VARIANTS`` further real cases of the same mechanism (PATE's GNMax next to
LNMax), and ``CONTROLS`` deliberately broken versions that must be flagged as violating their
claim, all derived from the registered families (:mod:`labeldp_core.registry`); the engine they
are measured with is :mod:`labeldp_core.release_audit`, below the families.

Case ``i`` of a mechanism draws from ``numpy.random.default_rng([seed, i])``: the command line,
which audits every case in turn, and the app, which caches each case on its own, find the same
bounds for the same seed. :func:`stored_audit_case` keeps each case's result in the result cache,
so the app's first view after ``warm`` (or after a server restart) does not wait for it.
"""

from dataclasses import fields

import numpy as np

from labeldp_core.base.validation import check_epsilon
from labeldp_core.cache import ResultCache
from labeldp_core.cache.fingerprint import joined
from labeldp_core.errors import InvalidInputError
from labeldp_core.registry import CASES, CONTROLS, VARIANTS, result_unit
from labeldp_core.release_audit.engine import AuditCase, AuditResult, run_audit

__all__ = [
    "APP_EPSILON",
    "APP_TRIALS",
    "CASES",
    "CONTROLS",
    "VARIANTS",
    "app_audit_points",
    "audit_case",
    "audit_cases",
    "audit_mechanism",
    "stored_audit_case",
]

#: What the audit page opens with (its draws per neighbour; ε is the app's default), which
#: ``warm`` computes for every audited mechanism.
APP_TRIALS = 200_000
APP_EPSILON = 1.0


def audit_cases(mechanism: str, epsilon: float) -> list[AuditCase]:
    """The cases of ``mechanism`` (its case, then any variants) followed by its controls."""
    epsilon = check_epsilon(epsilon)
    if mechanism not in CASES:
        known = ", ".join(CASES)
        raise InvalidInputError(f"no audit for mechanism '{mechanism}'; audits exist for: {known}")
    builders = [CASES[mechanism], *VARIANTS.get(mechanism, ()), *CONTROLS.get(mechanism, ())]
    return [build(epsilon) for build in builders]


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


def stored_audit_case(
    mechanism: str,
    epsilon: float,
    index: int,
    trials: int,
    seed: int = 0,
    cache: ResultCache | None = None,
    *,
    compute: bool = True,
) -> AuditResult | None:
    """:func:`audit_case` at 95% confidence, computed once and then read from the result cache.

    The key holds the arguments and the fingerprint of the code the audit runs (the mechanism's
    family and the audit's engine), so a changed audit or mechanism never serves a stale bound. With
    ``compute=False`` a case not in the cache is None instead (a read-only server).
    """
    cache = ResultCache() if cache is None else cache
    payload = {
        "mechanism": mechanism,
        "epsilon": float(epsilon),
        "index": int(index),
        "trials": int(trials),
        "seed": int(seed),
    }
    code = joined(result_unit(mechanism), __name__)  # the family's cases, the audit's engine
    if not compute:
        found = cache.get_json(cache.key("audit", payload, code))
        try:
            return None if found is None else AuditResult.from_dict(found)
        except (KeyError, TypeError):  # a damaged entry counts as absent
            return None
    stored = cache.json_or_compute(
        "audit",
        payload,
        lambda: audit_case(mechanism, epsilon, index, trials, seed).to_dict(),
        required=[field.name for field in fields(AuditResult)],
        by=code,
    )
    return AuditResult.from_dict(stored)


def app_audit_points() -> list[tuple[str, float, int, int, int]]:
    """(mechanism, epsilon, case index, trials, seed) of every case the audit page first shows."""
    return [
        (mechanism, APP_EPSILON, index, APP_TRIALS, 0)
        for mechanism in CASES
        for index in range(len(audit_cases(mechanism, APP_EPSILON)))
    ]
