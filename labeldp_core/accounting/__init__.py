"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

from labeldp_core.accounting.dpsgd import (
    ACCOUNTANTS,
    calibrate_noise_multiplier,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampling_schedule,
)

__all__ = [
    "ACCOUNTANTS",
    "calibrate_noise_multiplier",
    "dpsgd_epsilon",
    "dpsgd_epsilon_curve",
    "sampling_schedule",
]
