"""Laplace on labels' rows of the bad-input matrix: one-hot and regression releases, their
closed forms and post-processing, ALIBI's posterior, RR-on-bins.

Accepted on purpose (not errors): ``alibi_posterior`` normalises a prior that does not sum to one
(the posterior is the same for any positive multiple of the prior, see
``tests/families/laplace_labels/test_alibi.py::test_alibi_prior_scale_does_not_change_the_posterior``).

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    LABELS,
    NAN,
    NOISY,
    PRIOR3,
    RNG,
    SUPPORT,
    Bad,
    Row,
    counts,
    epsilons,
    labels,
    num_classes,
    positives,
    rngs,
    value_ranges,
    vectors,
)

#: RR-on-bins' bins for the three-value support.
BINS = mechanisms.optimal_bins(SUPPORT, PRIOR3, 1.0)
ONE_HOT_OUTPUT_CASES = [Bad("outputs", [["a", "b", "c"]], "must hold real numbers", "strings")]

ROWS = [
    Row(
        mechanisms.laplace_one_hot,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=[*epsilons(), *labels(), *num_classes(), *rngs()],
    ),
    Row(
        mechanisms.laplace_regression,
        {"values": SUPPORT, "epsilon": 1.0, "low": 0.0, "high": 2.0, "rng": RNG},
        bad=[
            *epsilons(),
            *value_ranges(),
            *rngs(),
            Bad("values", [0.0, 3.0], "must lie in [0, 2]", "out-of-range"),
            Bad("values", [-1.0], "must lie in [0, 2]", "below-range"),
            Bad("values", [], "empty", "empty"),
            Bad("values", [NAN, 1.0], "finite numbers", "nan"),
            Bad("values", ["a", "b"], "finite numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.argmax_accuracy,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.one_hot_log_density,
        {"outputs": NOISY, "label": 1, "epsilon": 1.0},
        bad=[
            *epsilons(),
            *ONE_HOT_OUTPUT_CASES,
            Bad("label", 3, "must lie in 0..2", "out-of-range"),
            Bad("label", -1, "must lie in 0..2", "negative"),
            Bad("label", 0.5, "whole numbers", "fraction"),
            Bad("outputs", [[0.5], [0.2]], "shape (n, K >= 2)", "K=1"),
        ],
    ),
    Row(
        mechanisms.expected_regression_mse,
        {"values": SUPPORT, "epsilon": 1.0, "low": 0.0, "high": 2.0},
        bad=[
            *epsilons(),
            *value_ranges(),
            Bad("values", [0.0, 3.0], "must lie in [0, 2]", "out-of-range"),
            Bad("values", [], "empty", "empty"),
        ],
    ),
    Row(
        mechanisms.discrete_argmax_accuracy,
        {"scale": 2.0, "num_classes": 3},
        bad=[
            *positives("scale"),
            *num_classes(),
            Bad("scale", 1e6, "sums 40 scales each way", "too-large"),
        ],
    ),
    Row(
        mechanisms.discrete_one_hot_log_pmf,
        {"outputs": [[1, 0, -2]], "label": 0, "scale": 2.0},
        bad=[
            *positives("scale"),
            Bad("label", 3, "must lie in 0..2", "out-of-range"),
            Bad("label", -1, "must lie in 0..2", "negative"),
        ],
    ),
    Row(
        mechanisms.expected_discrete_regression_mse,
        {"values": [0, 1, 2], "scale": 2.0, "low": 0, "high": 2},
        bad=[
            *positives("scale"),
            Bad("values", [0, 3], "must lie in", "out-of-range"),
            Bad("values", [0.5], "fractional parts", "fraction"),
        ],
    ),
    Row(
        mechanisms.regression_log_likelihood,
        {"outputs": SUPPORT, "value": 1.0, "epsilon": 1.0, "low": 0.0, "high": 2.0},
        bad=[
            *epsilons(),
            *value_ranges(),
            Bad("value", 5.0, "must lie in [0, 2]", "value-out-of-range"),
            Bad("outputs", [NAN], "finite numbers", "nan-outputs"),
        ],
    ),
    Row(
        mechanisms.clamp_normalise,
        {"noisy": NOISY},
        bad=vectors("noisy"),
    ),
    Row(
        mechanisms.clamp_round,
        {"noisy": NOISY},
        bad=vectors("noisy"),
    ),
    Row(
        mechanisms.post_process,
        {"noisy": NOISY, "post": "soft"},
        bad=[
            *vectors("noisy"),
            Bad("post", "median", "unknown post-processing 'median'; choose one of", "unknown"),
        ],
    ),
    Row(
        mechanisms.alibi_posterior,
        {"noisy": NOISY, "epsilon": 1.0, "prior": PRIOR3},
        bad=[
            *epsilons(),
            *vectors("noisy"),
            Bad("prior", [0.5, 0.5], "the prior must have shape", "wrong-shape"),
            Bad("prior", [0.5, -0.1, 0.6], "non-negative", "negative"),
            Bad("prior", [0.0, 0.0, 0.0], "positive mass", "zero-mass"),
            Bad("prior", [NAN, 0.5, 0.5], "finite", "nan"),
            Bad("prior", ["a", "b", "c"], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.optimal_bins,
        {"values": SUPPORT, "prior": PRIOR3, "epsilon": 1.0},
        bad=[
            *epsilons(),
            Bad("values", [], "non-empty 1-D array", "empty"),
            Bad("values", [0.0, 2.0, 1.0], "strictly increasing", "unsorted"),
            Bad("values", [0.0, NAN, 2.0], "finite numbers", "nan"),
            Bad("values", ["a", "b", "c"], "must hold real numbers", "strings"),
            Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
            Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
            Bad("prior", [-0.1, 0.6, 0.5], "non-negative", "negative"),
        ],
    ),
    Row(
        mechanisms.best_constant_mse,
        {"values": SUPPORT, "prior": PRIOR3},
        bad=[
            Bad("values", [], "non-empty 1-D array", "empty"),
            Bad("values", [0.0, 2.0, 1.0], "strictly increasing", "unsorted"),
            Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
            Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
        ],
    ),
    Row(
        mechanisms.expected_squared_error,
        {"bins": BINS, "prior": PRIOR3},
        bad=[
            Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
            Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
            Bad("prior", [NAN, 0.5, 0.5], "sum to one", "nan"),
            Bad("bins", "bins", "bins must be an RRBins", "str"),
        ],
    ),
    Row(
        mechanisms.rr_on_bins,
        {"values": SUPPORT, "bins": BINS, "rng": RNG},
        bad=[
            Bad("values", [0.5], "one of the values the bins were built for", "not-a-bin-value"),
            Bad("values", [NAN], "one of the values the bins were built for", "nan"),
            Bad("values", [], "non-empty 1-D array", "empty"),
            Bad("values", [[0.0, 1.0]], "non-empty 1-D array", "2-D"),
            Bad("values", ["a"], "must hold real numbers", "strings"),
            Bad("bins", "bins", "bins must be an RRBins", "str"),
        ],
    ),
    Row(
        mechanisms.rr_bins_epsilon,
        {"num_bins": 3, "epsilon": 1.0},
        bad=[*epsilons(), *counts("num_bins")],
    ),
]
