"""Empirical privacy audits: Clopper-Pearson lower bounds on epsilon from neighbouring inputs."""

from labeldp_core.audit.bounds import (
    clopper_pearson,
    epsilon_lower_bound,
    largest_provable_epsilon,
)
from labeldp_core.audit.cases import CASES, CONTROLS, VARIANTS, audit_cases
from labeldp_core.audit.engine import AuditCase, AuditResult, run_audit
from labeldp_core.audit.suite import (
    APP_EPSILON,
    APP_TRIALS,
    app_audit_points,
    audit_case,
    audit_mechanism,
    stored_audit_case,
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
