"""Empirical privacy audits: Clopper-Pearson lower bounds on epsilon from neighbouring inputs."""

from labeldp_core.audit.bounds import clopper_pearson, epsilon_lower_bound
from labeldp_core.audit.cases import CASES, CONTROLS, audit_cases
from labeldp_core.audit.engine import AuditCase, AuditResult, run_audit

__all__ = [
    "CASES",
    "CONTROLS",
    "AuditCase",
    "AuditResult",
    "audit_cases",
    "clopper_pearson",
    "epsilon_lower_bound",
    "run_audit",
]
