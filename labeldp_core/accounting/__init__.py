"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.composition import (
    BudgetSplit,
    sequential_composition,
    split_budget,
)

__all__ = ["BudgetSplit", "sequential_composition", "split_budget"]
