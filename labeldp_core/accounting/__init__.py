"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

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
from labeldp_core.accounting.pate import (
    AGGREGATORS,
    calibrate_noise,
    data_independent_epsilon,
    epsilon_as_queries_grow,
    pate_epsilon,
    pate_rdp,
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
