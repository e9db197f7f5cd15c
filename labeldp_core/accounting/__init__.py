"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.composition import (
    BudgetSplit,
    parallel_composition,
    sequential_composition,
    split_budget,
    split_budget_by_share,
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
    "parallel_composition",
    "sequential_composition",
    "split_budget",
    "split_budget_by_share",
    "zcdp_of_pure_dp",
    "zcdp_to_approx_dp",
]
