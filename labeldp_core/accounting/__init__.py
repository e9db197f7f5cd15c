"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.pate import (
    AGGREGATORS,
    calibrate_noise,
    data_independent_epsilon,
    epsilon_as_queries_grow,
    pate_epsilon,
    pate_rdp,
)
from labeldp_core.accounting.rdp import ORDERS, epsilon_from_rdp

__all__ = [
    "AGGREGATORS",
    "ORDERS",
    "calibrate_noise",
    "data_independent_epsilon",
    "epsilon_as_queries_grow",
    "epsilon_from_rdp",
    "pate_epsilon",
    "pate_rdp",
]
