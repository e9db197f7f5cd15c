"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.randomized_response import (
    expected_flip_rate,
    keep_probability,
    randomized_response,
    transition_matrix,
)

__all__ = [
    "expected_flip_rate",
    "keep_probability",
    "randomized_response",
    "transition_matrix",
]
