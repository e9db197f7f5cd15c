"""Empirical privacy audits of every registered mechanism: its cases, its controls, the suite.

Clopper-Pearson lower bounds on epsilon from neighbouring inputs. The engine and the bounds
(:mod:`labeldp_core.engine.audit`, :mod:`labeldp_core.engine.audit_bounds`) are the shared base
each family's audit cases are built on; the tables of cases (:mod:`~labeldp_core.audit.cases`)
and the suite (:mod:`~labeldp_core.audit.suite`) compose the registered families.
"""

from labeldp_core.audit.cases import CASES, CONTROLS, VARIANTS, audit_cases
from labeldp_core.audit.suite import (
    APP_EPSILON,
    APP_TRIALS,
    app_audit_points,
    audit_case,
    audit_mechanism,
    stored_audit_case,
)
from labeldp_core.engine.audit import AuditCase, AuditResult, run_audit
from labeldp_core.engine.audit_bounds import (
    clopper_pearson,
    epsilon_lower_bound,
    largest_provable_epsilon,
)

__all__ = [
    "APP_EPSILON",
    "APP_TRIALS",
    "CASES",
    "CONTROLS",
    "VARIANTS",
    "AuditCase",
    "AuditResult",
    "app_audit_points",
    "audit_case",
    "audit_cases",
    "audit_mechanism",
    "clopper_pearson",
    "epsilon_lower_bound",
    "largest_provable_epsilon",
    "run_audit",
    "stored_audit_case",
]
