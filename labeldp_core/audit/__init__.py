"""Empirical privacy audits: Clopper-Pearson lower bounds on epsilon from neighbouring inputs.

The engine and the bounds are the shared base every family's audit cases are built on; the
tables of cases (:mod:`~labeldp_core.audit.cases`) and the suite
(:mod:`~labeldp_core.audit.suite`) compose the registered families, so they are loaded on first
use (a family's ``audit.py`` imports the engine while the registry is still being built).
"""

from importlib import import_module
from typing import Any

from labeldp_core.audit.bounds import (
    clopper_pearson,
    epsilon_lower_bound,
    largest_provable_epsilon,
)
from labeldp_core.audit.engine import AuditCase, AuditResult, run_audit

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

#: Names served by the modules above the families, by module.
_ABOVE = {
    "labeldp_core.audit.cases": ("CASES", "CONTROLS", "VARIANTS", "audit_cases"),
    "labeldp_core.audit.suite": (
        "APP_EPSILON",
        "APP_TRIALS",
        "app_audit_points",
        "audit_case",
        "audit_mechanism",
        "stored_audit_case",
    ),
}


def __getattr__(name: str) -> Any:
    """The names of the case tables and the suite, imported on first use (PEP 562)."""
    for module, names in _ABOVE.items():
        if name in names:
            return getattr(import_module(module), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
