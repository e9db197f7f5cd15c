"""Label-DP mechanisms: pure NumPy release functions and their closed-form facts."""

from labeldp_core.mechanisms.alibi import (
    alibi_posterior,
)
from labeldp_core.mechanisms.coinpress import (
    CoinPressTrace,
    coinpress_mean,
)
from labeldp_core.mechanisms.discrete_laplace import (
    discrete_laplace_noise,
    discrete_laplace_parameter,
    discrete_laplace_pmf,
    discrete_laplace_variance,
)
from labeldp_core.mechanisms.exponential import (
    exponential_mechanism,
    exponential_probabilities,
    exponential_topk,
)
from labeldp_core.mechanisms.label_histogram import (
    HISTOGRAM_SENSITIVITY,
    label_counts,
    noisy_label_counts,
    prior_from_counts,
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
    discrete_argmax_accuracy,
    discrete_one_hot_log_pmf,
    expected_discrete_regression_mse,
    expected_regression_mse,
    laplace_one_hot,
    laplace_regression,
    one_hot_log_density,
    post_process,
    regression_log_likelihood,
)
from labeldp_core.mechanisms.pate import (
    UNANSWERED,
    confident_gnmax,
    noisy_argmax,
    plurality,
    top_two_gap,
    vote_counts,
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
from labeldp_core.mechanisms.rr_prior import (
    expected_keep_probability,
    optimal_set_size,
    output_probabilities,
    rr_with_prior,
    set_keep_probability,
)
from labeldp_core.mechanisms.softmax_laplace import (
    PROBABILITY_SENSITIVITY,
    actual_epsilon,
    epsilon_for_output_noise,
    laplace_outputs,
)

__all__ = [
    "HISTOGRAM_SENSITIVITY",
    "ONE_HOT_SENSITIVITY",
    "POST_PROCESSING",
    "PROBABILITY_SENSITIVITY",
    "UNANSWERED",
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
    "confident_gnmax",
    "discrete_argmax_accuracy",
    "discrete_laplace_noise",
    "discrete_laplace_parameter",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "discrete_one_hot_log_pmf",
    "epsilon_for_noise",
    "epsilon_for_output_noise",
    "expected_discrete_regression_mse",
    "expected_flip_rate",
    "expected_keep_probability",
    "expected_regression_mse",
    "expected_squared_error",
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_topk",
    "keep_probability",
    "label_counts",
    "laplace_cdf",
    "laplace_density",
    "laplace_epsilon",
    "laplace_one_hot",
    "laplace_outputs",
    "laplace_regression",
    "laplace_scale",
    "laplace_variance",
    "nearest_prototype",
    "noisy_argmax",
    "noisy_label_counts",
    "one_hot_log_density",
    "optimal_bins",
    "optimal_set_size",
    "output_probabilities",
    "plurality",
    "post_process",
    "prior_from_counts",
    "private_class_means",
    "public_prototype_indices",
    "randomized_response",
    "regression_log_likelihood",
    "rr_bins_epsilon",
    "rr_on_bins",
    "rr_with_prior",
    "set_keep_probability",
    "tail_probability",
    "top_two_gap",
    "transition_matrix",
    "vote_counts",
]
