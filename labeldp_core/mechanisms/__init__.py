"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.coinpress import CoinPressTrace, coinpress_mean
from labeldp_core.mechanisms.exponential import (
    exponential_mechanism,
    exponential_probabilities,
    exponential_topk,
)
from labeldp_core.mechanisms.prototypes import (
    class_utilities,
    nearest_prototype,
    private_class_means,
    public_prototype_indices,
)
from labeldp_core.mechanisms.randomized_response import (
    expected_flip_rate,
    keep_probability,
    randomized_response,
    transition_matrix,
)

__all__ = [
    "CoinPressTrace",
    "class_utilities",
    "coinpress_mean",
    "expected_flip_rate",
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_topk",
    "keep_probability",
    "nearest_prototype",
    "private_class_means",
    "public_prototype_indices",
    "randomized_response",
    "transition_matrix",
]
