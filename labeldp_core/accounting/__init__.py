"""Privacy accounting: budget splits and composition, DP-SGD accountants, and PATE's names.

PATE's analysis lives in its family (:mod:`labeldp_core.families.pate.accounting`), the only
code that uses it. Its public names stay importable from here, the path docs/interfaces.md
promises (``labeldp_core.accounting.pate_epsilon``): they are served from the family on first use
(PEP 562), so importing the shared accounting imports no family.
"""

from importlib import import_module
from typing import Any

from labeldp_core.accounting.composition import (
    BudgetSplit,
    parallel_composition,
    sequential_composition,
    split_budget,
    split_budget_by_share,
)
from labeldp_core.accounting.dpsgd import (
    ACCOUNTANTS,
    calibrate_noise_multiplier,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampling_schedule,
)
from labeldp_core.accounting.rdp import (
    ORDERS,
    epsilon_from_rdp,
)
from labeldp_core.accounting.zcdp import (
    gaussian_sigma,
    gaussian_zcdp,
    group_zcdp,
    zcdp_of_pure_dp,
    zcdp_to_approx_dp,
)

__all__ = [
    "ACCOUNTANTS",
    "AGGREGATORS",
    "ORDERS",
    "BudgetSplit",
    "calibrate_noise",
    "calibrate_noise_multiplier",
    "data_independent_epsilon",
    "dpsgd_epsilon",
    "dpsgd_epsilon_curve",
    "epsilon_as_queries_grow",
    "epsilon_from_rdp",
    "gaussian_sigma",
    "gaussian_zcdp",
    "group_zcdp",
    "parallel_composition",
    "pate_epsilon",
    "pate_rdp",
    "sampling_schedule",
    "sequential_composition",
    "split_budget",
    "split_budget_by_share",
    "zcdp_of_pure_dp",
    "zcdp_to_approx_dp",
]

#: PATE's public names, served from its family's accounting (see the module's docstring).
_PATE_ACCOUNTING = "labeldp_core.families.pate.accounting"
_PATE_NAMES = frozenset(
    {
        "AGGREGATORS",
        "calibrate_noise",
        "data_independent_epsilon",
        "epsilon_as_queries_grow",
        "pate_epsilon",
        "pate_rdp",
    }
)


def __getattr__(name: str) -> Any:
    """One of PATE's names, from :mod:`labeldp_core.families.pate.accounting`."""
    if name in _PATE_NAMES:
        return getattr(import_module(_PATE_ACCOUNTING), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
