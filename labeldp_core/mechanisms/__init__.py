"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.alibi import alibi_posterior
from labeldp_core.mechanisms.coinpress import CoinPressTrace, coinpress_mean
from labeldp_core.mechanisms.exponential import (
    exponential_mechanism,
    exponential_probabilities,
    exponential_topk,
)
from labeldp_core.mechanisms.laplace import (
    epsilon_for_noise,
    laplace_cdf,
    laplace_density,
    laplace_epsilon,
    laplace_scale,
    laplace_variance,
    tail_probability,
)
from labeldp_core.mechanisms.laplace_labels import (
    ONE_HOT_SENSITIVITY,
    POST_PROCESSING,
    argmax_accuracy,
    clamp_normalise,
    clamp_round,
    expected_regression_mse,
    laplace_one_hot,
    laplace_regression,
    one_hot_log_density,
    post_process,
    regression_log_likelihood,
)
from labeldp_core.mechanisms.noisy_histogram import (
    discrete_laplace,
    histogram_prior,
    noisy_histogram,
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
from labeldp_core.mechanisms.rr_bins import (
    RRBins,
    best_constant_mse,
    expected_squared_error,
    optimal_bins,
    rr_bins_epsilon,
    rr_on_bins,
)
from labeldp_core.mechanisms.softmax_laplace import (
    PROBABILITY_SENSITIVITY,
    actual_epsilon,
    epsilon_for_output_noise,
    laplace_outputs,
)

__all__ = [
    "ONE_HOT_SENSITIVITY",
    "POST_PROCESSING",
    "PROBABILITY_SENSITIVITY",
    "CoinPressTrace",
    "RRBins",
    "actual_epsilon",
    "alibi_posterior",
    "argmax_accuracy",
    "best_constant_mse",
    "clamp_normalise",
    "clamp_round",
    "class_utilities",
    "coinpress_mean",
    "discrete_laplace",
    "epsilon_for_noise",
    "epsilon_for_output_noise",
    "expected_flip_rate",
    "expected_regression_mse",
    "expected_squared_error",
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_topk",
    "histogram_prior",
    "keep_probability",
    "laplace_cdf",
    "laplace_density",
    "laplace_epsilon",
    "laplace_one_hot",
    "laplace_outputs",
    "laplace_regression",
    "laplace_scale",
    "laplace_variance",
    "nearest_prototype",
    "noisy_histogram",
    "one_hot_log_density",
    "optimal_bins",
    "post_process",
    "private_class_means",
    "public_prototype_indices",
    "randomized_response",
    "regression_log_likelihood",
    "rr_bins_epsilon",
    "rr_on_bins",
    "tail_probability",
    "transition_matrix",
]
