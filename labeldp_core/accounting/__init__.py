"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.composition import (
    BudgetSplit,
    parallel_composition,
    sequential_composition,
    split_budget,
    split_budget_by_share,
)

__all__ = [
    "BudgetSplit",
    "parallel_composition",
    "sequential_composition",
    "split_budget",
    "split_budget_by_share",
]
