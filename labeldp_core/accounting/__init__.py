"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.composition import (
    BudgetSplit,
    sequential_composition,
    split_budget,
)
from labeldp_core.accounting.zcdp import (
    gaussian_sigma,
    gaussian_zcdp,
    group_zcdp,
    zcdp_of_pure_dp,
    zcdp_to_approx_dp,
)

__all__ = [
    "BudgetSplit",
    "gaussian_sigma",
    "gaussian_zcdp",
    "group_zcdp",
    "sequential_composition",
    "split_budget",
    "zcdp_of_pure_dp",
    "zcdp_to_approx_dp",
]
