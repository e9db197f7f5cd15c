"""The bad-input table of ``labeldp_core.mechanisms``: valid calls beside their bad values.

The rows below, and those each family's tests folder adds (:func:`family_rows`).

Accepted on purpose (not errors): ``alibi_posterior`` normalises a prior that does not sum to one
(the posterior is the same for any positive multiple of the prior, see
``test_alibi_prior_scale_does_not_change_the_posterior``); NaN in the points where a density or
CDF is evaluated gives NaN there, as in NumPy; a noise scale of 0 in ``noisy_argmax`` is the
documented "no privacy" case.
"""

import numpy as np
import pytest

from labeldp_core import mechanisms
from labeldp_core.families.labeldp_pro.trainer import ProSettings
from labeldp_core.training.settings import TrainSettings
from tests.contract.bad_values import (
    BINS,
    INF,
    LABELS,
    NAN,
    NOISY,
    POINTS,
    PRIOR3,
    PRIORS,
    PROBS,
    RNG,
    SUPPORT,
    VOTES,
    Bad,
    Row,
    bad_calls,
    check_bad_call,
    check_valid_call,
    counts,
    epsilons,
    labels,
    num_classes,
    positives,
    priors,
    probabilities,
    rngs,
    valid_calls,
    value_ranges,
    vectors,
    vote_table,
)
from tests.families import family_modules

#: LabelDP-Pro's valid call: four 1x2x2 images, a logistic model, two steps.
PRO_IMAGES = np.linspace(0.0, 1.0, 16).reshape(4, 1, 2, 2)
PRO_TRAINING = TrainSettings(model="logistic", epochs=1, batch_size=2, learning_rate=0.1)
PRO_SETTINGS = ProSettings(noise_multiplier=1.0, clip=1.0, public_batch=2, projection_steps=2)


def _pro_data(images=PRO_IMAGES, labels=LABELS, test=PRO_IMAGES[:3]) -> tuple:
    """LabelDP-Pro's data: training images and labels, test images and labels (0, 1, 2)."""
    return (images, labels, test, np.arange(len(test)) % 3)


PRO_DATA = _pro_data()
ONE_HOT_OUTPUT_CASES = [Bad("outputs", [["a", "b", "c"]], "must hold real numbers", "strings")]

MECHANISM_ROWS: list[Row] = [
    # The Python entry points of docs/interfaces.md.
    Row(
        mechanisms.randomized_response,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=[*epsilons(), *labels(), *num_classes(), *rngs()],
    ),
    Row(
        mechanisms.rr_with_prior,
        {"labels": LABELS, "priors": PRIORS, "epsilon": 1.0, "rng": RNG},
        bad=[*epsilons(), *labels(), *priors(), *rngs()],
    ),
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
        mechanisms.noisy_argmax,
        {"vote_counts": VOTES, "rng": RNG, "laplace_scale": 1.0},
        bad=[
            *vote_table(),
            *rngs(),
            Bad("laplace_scale", -1.0, "laplace_scale must be a finite number >= 0", "negative"),
            Bad("laplace_scale", NAN, "laplace_scale must be a finite number >= 0", "nan"),
            Bad("laplace_scale", "1", "laplace_scale must be a number", "str"),
            Bad("laplace_scale", None, "give exactly one of laplace_scale", "neither"),
            Bad("gaussian_sigma", 1.0, "give exactly one of laplace_scale", "both"),
        ],
    ),
    Row(
        mechanisms.noisy_vote_counts,
        {"vote_counts": VOTES, "rng": RNG, "gaussian_sigma": 1.0},
        bad=[
            *vote_table(),
            *rngs(),
            Bad("gaussian_sigma", -1.0, "gaussian_sigma must be a finite number >= 0", "negative"),
            Bad("gaussian_sigma", "1", "gaussian_sigma must be a number", "str"),
            Bad("laplace_scale", 1.0, "give exactly one of laplace_scale", "both"),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
        ],
    ),
    # Vector randomized response and LabelDP-Pro: the release functions their families declare.
    Row(
        mechanisms.vector_randomized_response,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=[
            *epsilons(),
            *labels(),
            *num_classes(),
            *rngs(),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
        ],
    ),
    Row(
        mechanisms.train_labeldp_pro,
        {
            "data": PRO_DATA,
            "num_classes": 3,
            "settings": PRO_TRAINING,
            "pro": PRO_SETTINGS,
            "seed": 0,
        },
        bad=[
            *num_classes(),
            *[Bad("data", _pro_data(labels=b.value), b.match, b.label) for b in labels()],
            Bad("data", _pro_data(images=PRO_IMAGES[:3]), "rows but 4 labels", "rows-mismatch"),
            Bad("data", _pro_data(images=PRO_IMAGES * NAN), "must be finite", "nan-images"),
            Bad("data", _pro_data(images=[["a", "b"]] * 4), "must hold real numbers", "strings"),
            Bad("data", _pro_data(images=POINTS), "(n, channels, height, width)", "flat"),
            Bad("data", _pro_data(test=np.zeros((3, 1, 3, 3))), "same shape per image", "shapes"),
            Bad("data", "digits", "data must be (training images", "str"),
            Bad("settings", "logistic", "settings must be a TrainSettings", "str-settings"),
            Bad("pro", {"clip": 1.0}, "pro must be a ProSettings", "dict-pro"),
            Bad("pro", ProSettings(0.0, 1.0), "noise_multiplier must be greater than 0", "sigma"),
            Bad("pro", ProSettings(1.0, -1.0), "clip", "negative-clip"),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
            Bad("seed", -1, "seed must be a whole number", "negative-seed"),
        ],
    ),
    # labeldp_core.mechanisms: randomized response and RR with prior.
    Row(
        mechanisms.keep_probability,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.expected_flip_rate,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.transition_matrix,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.optimal_set_size,
        {"priors": PRIORS, "epsilon": 1.0},
        bad=[*epsilons(), *priors()[:-1]],
    ),
    Row(
        mechanisms.expected_keep_probability,
        {"priors": PRIORS, "epsilon": 1.0},
        bad=[*epsilons(), *priors()[:-1]],
    ),
    Row(
        mechanisms.output_probabilities,
        {"priors": PRIORS, "labels": LABELS, "epsilon": 1.0},
        bad=[*epsilons(), *labels(), *priors()],
    ),
    Row(
        mechanisms.set_keep_probability,
        {"set_size": 2, "epsilon": 1.0},
        bad=[
            *epsilons(),
            Bad("set_size", 0, "set sizes must be whole numbers >= 1", "zero"),
            Bad("set_size", [2, -1], "set sizes must be whole numbers >= 1", "negative"),
            Bad("set_size", 1.5, "set sizes must be whole numbers >= 1", "fraction"),
            Bad("set_size", NAN, "set sizes must be whole numbers >= 1", "nan"),
            Bad("set_size", "2", "set sizes must be whole numbers >= 1", "str"),
        ],
    ),
    # Laplace: closed forms, labels, post-processing.
    Row(
        mechanisms.laplace_scale,
        {"sensitivity": 2.0, "epsilon": 1.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
    Row(
        mechanisms.laplace_epsilon,
        {"sensitivity": 2.0, "scale": 1.0},
        bad=[*positives("sensitivity"), *positives("scale")],
    ),
    Row(
        mechanisms.laplace_variance,
        {"scale": 1.0},
        bad=positives("scale"),
    ),
    Row(
        mechanisms.laplace_density,
        {"x": [0.5, -1.0], "scale": 1.0},
        bad=[*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    ),
    Row(
        mechanisms.laplace_cdf,
        {"x": [0.5, -1.0], "scale": 1.0},
        bad=[*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    ),
    Row(
        mechanisms.tail_probability,
        {"threshold": 1.0, "scale": 1.0},
        bad=[
            *positives("scale"),
            Bad("threshold", -1.0, "t must be a finite number >= 0", "negative"),
            Bad("threshold", NAN, "t must be a finite number >= 0", "nan"),
            Bad("threshold", "1", "must hold real numbers", "str"),
        ],
    ),
    Row(
        mechanisms.epsilon_for_noise,
        {"magnitude": 1.0, "probability": 0.9, "sensitivity": 2.0},
        bad=[
            *positives("magnitude", "noise magnitude t"),
            *probabilities("probability", "probability p"),
            *positives("sensitivity"),
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
    # Softmax outputs (local DP).
    Row(
        mechanisms.laplace_outputs,
        {"probabilities": PROBS, "epsilon": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *[
                Bad(b.arg, b.value, b.match.replace("noisy vectors", "probabilities"), b.label)
                for b in vectors("probabilities", "probabilities")
            ],
            Bad("probabilities", [[0.5, 0.2, 0.1]], "must sum to one", "sum-below-one"),
            Bad("probabilities", [[1.2, -0.1, -0.1]], "non-negative", "negative"),
        ],
    ),
    Row(
        mechanisms.actual_epsilon,
        {"epsilon": 1.0, "assumed_sensitivity": 1.0},
        bad=[*epsilons(), *positives("assumed_sensitivity", "sensitivity")],
    ),
    Row(
        mechanisms.epsilon_for_output_noise,
        {"magnitude": 0.5, "probability": 0.9},
        bad=[
            *positives("magnitude", "noise magnitude t"),
            *probabilities("probability", "probability p"),
        ],
    ),
    # RR-on-bins.
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
    # PATE aggregation.
    Row(
        mechanisms.vote_counts,
        {"votes": [[0, 1], [2, 1]], "num_classes": 3},
        bad=[
            *num_classes(),
            Bad("votes", [[0, 3]], "must lie in 0..2", "out-of-range"),
            Bad("votes", [[0, -1]], "must lie in 0..2", "negative"),
            Bad("votes", [[0.0, 1.0]], "integer class indices", "floats"),
            Bad("votes", np.zeros((0, 2), dtype=int), "non-empty (teachers, queries)", "empty"),
            Bad("votes", [0, 1], "non-empty (teachers, queries)", "1-D"),
        ],
    ),
    Row(
        mechanisms.plurality,
        {"vote_counts": VOTES},
        bad=vote_table(),
    ),
    Row(
        mechanisms.top_two_gap,
        {"vote_counts": VOTES},
        bad=vote_table(),
    ),
    Row(
        mechanisms.confident_gnmax,
        {
            "vote_counts": VOTES,
            "rng": RNG,
            "threshold": 5.0,
            "threshold_sigma": 1.0,
            "gaussian_sigma": 1.0,
        },
        bad=[
            *vote_table(),
            Bad("threshold", NAN, "threshold must be finite", "nan-threshold"),
            Bad("threshold", "5", "threshold must be a number of votes", "str-threshold"),
            Bad(
                "threshold_sigma", -1.0, "threshold_sigma must be a finite number >= 0", "negative"
            ),
            Bad("gaussian_sigma", INF, "gaussian_sigma must be a finite number >= 0", "inf"),
        ],
    ),
    # Label histograms and discrete Laplace noise.
    Row(
        mechanisms.label_counts,
        {"groups": [0, 1, 0, 1], "labels": LABELS, "num_groups": 2, "num_classes": 3},
        bad=[
            *num_classes(),
            *labels(),
            Bad("groups", [0, 2, 0, 1], "integer group ids in 0..1", "out-of-range"),
            Bad("groups", [0.0, 1.0, 0.0, 1.0], "integer group ids in 0..1", "floats"),
            Bad("groups", [0, 1], "same length", "mismatched"),
            *counts("num_groups"),
        ],
    ),
    Row(
        mechanisms.noisy_label_counts,
        {
            "groups": [0, 1, 0, 1],
            "labels": LABELS,
            "num_groups": 2,
            "num_classes": 3,
            "epsilon": 1.0,
            "rng": RNG,
        },
        bad=[
            *epsilons(),
            *labels(),
            Bad("groups", [0, 1], "same length", "mismatched"),
        ],
    ),
    Row(
        mechanisms.prior_from_counts,
        {"counts": [[3, 1, 0], [0, -1, 0]]},
        bad=[
            Bad("counts", [3, 1, 0], "counts must be a (groups, K) array", "1-D"),
            Bad("counts", [[3], [1]], "counts must be a (groups, K) array", "K=1"),
            Bad("counts", np.zeros((0, 3)), "counts must be a (groups, K) array", "empty"),
            Bad("counts", [[3, NAN, 0]], "counts must be finite", "nan"),
            Bad("counts", [["3", "1", "0"]], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_noise,
        {"shape": (3,), "epsilon": 1.0, "sensitivity": 2.0, "rng": RNG},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("shape", -1, "shape must be", "negative"),
            Bad("shape", (2, -3), "shape must be", "negative-axis"),
            Bad("shape", 2.5, "shape must be", "fraction"),
            Bad("shape", "3", "shape must be", "str"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_parameter,
        {"epsilon": 1.0, "sensitivity": 2.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
    Row(
        mechanisms.discrete_laplace_pmf,
        {"values": [0, -2, 3], "epsilon": 1.0, "sensitivity": 2.0},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("values", [0.5], "whole numbers", "fraction"),
            Bad("values", [NAN], "whole numbers", "nan"),
            Bad("values", ["a"], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_variance,
        {"epsilon": 1.0, "sensitivity": 2.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
    # Exponential mechanism and DP prototypes.
    Row(
        mechanisms.exponential_probabilities,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("utilities", [], "non-empty", "empty"),
            Bad("utilities", np.zeros((1, 2, 3)), "non-empty 1-D array", "3-D"),
            Bad("utilities", [[1.0, NAN]], "finite numbers", "nan"),
            Bad("utilities", [["a", "b"]], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.exponential_mechanism,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
        bad=[*epsilons(), Bad("utilities", [[INF, 1.0]], "finite", "inf")],
    ),
    Row(
        mechanisms.exponential_topk,
        {"utilities": [[1.0, 2.0, 3.0]], "k": 2, "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *counts("k"),
            Bad("k", 4, "k=4 is larger than the number of items (3)", "too-large"),
        ],
    ),
    Row(
        mechanisms.coinpress_mean,
        {"points": POINTS, "step_rhos": [0.5], "count": 4.0, "rng": RNG},
        bad=[
            Bad("points", [0.1, 0.2], "points must be an (n, d) array", "1-D"),
            Bad("points", np.zeros((4, 0)), "points must be an (n, d) array", "d=0"),
            Bad("points", [[NAN, 0.0]], "points must be finite", "nan"),
            Bad("points", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("step_rhos", [], "step_rhos must not be empty", "empty"),
            Bad("step_rhos", 0.5, "step_rhos must be a list", "scalar"),
            Bad("step_rhos", [0.5, -1.0], "each step's rho must be", "negative"),
            *positives("count"),
            *probabilities("beta"),
            Bad("bound", 0.0, "bound must be", "zero-bound"),
            Bad("spread", NAN, "spread must be", "nan-spread"),
        ],
    ),
    Row(
        mechanisms.class_utilities,
        {"candidates": POINTS, "private": POINTS, "labels": LABELS, "num_classes": 3},
        bad=[
            *num_classes(),
            *labels(),
            Bad("candidates", np.zeros((4, 3)), "must share d", "d-mismatch"),
            Bad("private", POINTS[:3], "private has 3 rows but labels has 4", "rows-mismatch"),
            Bad("candidates", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("private", [[NAN, 0.0]] * 4, "private must be finite", "nan"),
            Bad("min_score", 3.0, "0 <= min_score < max_score <= 2", "min-above-two"),
        ],
    ),
    Row(
        mechanisms.nearest_prototype,
        {"embeddings": POINTS, "prototypes": POINTS[:3]},
        bad=[
            Bad("prototypes", np.zeros((3, 5)), "must share d", "d-mismatch"),
            Bad("prototypes", np.zeros((0, 2)), "at least one prototype", "empty"),
            Bad("embeddings", [0.1, 0.2], "embeddings must be an (n, d) array", "1-D"),
            Bad("embeddings", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("prototypes", [[NAN, 1.0]], "prototypes must be finite", "nan"),
        ],
    ),
    Row(
        mechanisms.private_class_means,
        {"embeddings": POINTS, "labels": LABELS, "num_classes": 3, "rho": 0.5, "rng": RNG},
        bad=[
            *num_classes(),
            *labels(),
            *positives("rho"),
            *counts("steps"),
            Bad("embeddings", POINTS[:3], "one row per label", "rows-mismatch"),
            Bad("embeddings", [["a", "b"]] * 4, "must hold real numbers", "strings"),
            Bad("count_share", 1.5, "count_share must lie in (0, 1)", "share-above-one"),
        ],
    ),
    Row(
        mechanisms.public_prototype_indices,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *counts("k"),
            Bad("k", 5, "larger than the number of items", "too-large"),
            Bad("utilities", [[NAN, 1.0]], "finite", "nan"),
        ],
    ),
]


def family_rows() -> list[Row]:
    """The rows each family's tests folder adds: ``tests/families/<family>/bad_inputs.py``'s
    ``ROWS`` (a new family's release API gets its rows there, beside its other tests)."""
    return [row for module in family_modules("bad_inputs").values() for row in module.ROWS]


MECHANISM_ROWS += family_rows()


@pytest.mark.parametrize("row", valid_calls(MECHANISM_ROWS))
def test_valid_arguments_are_accepted(row):
    check_valid_call(row)


@pytest.mark.parametrize(("row", "bad"), bad_calls(MECHANISM_ROWS))
def test_bad_input_raises_a_clear_invalid_input_error(row, bad):
    check_bad_call(row, bad)


def test_alibi_prior_scale_does_not_change_the_posterior():
    # Accepted on purpose: ALIBI's posterior is invariant to the prior's scale.
    normalised = mechanisms.alibi_posterior(NOISY, 1.0, PRIOR3)
    np.testing.assert_allclose(mechanisms.alibi_posterior(NOISY, 1.0, PRIOR3 * 7), normalised)
