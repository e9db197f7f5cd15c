"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.pate import (
    UNANSWERED,
    confident_gnmax,
    noisy_argmax,
    plurality,
    top_two_gap,
    vote_counts,
)
from labeldp_core.mechanisms.randomized_response import (
    expected_flip_rate,
    keep_probability,
    randomized_response,
    transition_matrix,
)

__all__ = [
    "UNANSWERED",
    "confident_gnmax",
    "expected_flip_rate",
    "keep_probability",
    "noisy_argmax",
    "plurality",
    "randomized_response",
    "top_two_gap",
    "transition_matrix",
    "vote_counts",
]
