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

#: Where the names of ``__all__`` not defined above live: PATE's accounting, in its family.
_PATE_ACCOUNTING = "labeldp_core.families.pate.accounting"


def __getattr__(name: str) -> Any:
    """One of PATE's names (listed in ``__all__``), from its family's accounting."""
    if name in __all__:
        return getattr(import_module(_PATE_ACCOUNTING), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
