"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.discrete_laplace import (
    discrete_laplace_noise,
    discrete_laplace_parameter,
    discrete_laplace_pmf,
    discrete_laplace_variance,
)
from labeldp_core.mechanisms.label_histogram import (
    HISTOGRAM_SENSITIVITY,
    label_counts,
    noisy_label_counts,
    prior_from_counts,
)
from labeldp_core.mechanisms.randomized_response import (
    expected_flip_rate,
    keep_probability,
    randomized_response,
    transition_matrix,
)
from labeldp_core.mechanisms.rr_prior import (
    expected_keep_probability,
    optimal_set_size,
    output_probabilities,
    rr_with_prior,
    set_keep_probability,
)

__all__ = [
    "HISTOGRAM_SENSITIVITY",
    "discrete_laplace_noise",
    "discrete_laplace_parameter",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "expected_flip_rate",
    "expected_keep_probability",
    "keep_probability",
    "label_counts",
    "noisy_label_counts",
    "optimal_set_size",
    "output_probabilities",
    "prior_from_counts",
    "randomized_response",
    "rr_with_prior",
    "set_keep_probability",
    "transition_matrix",
]
