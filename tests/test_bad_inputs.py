"""The bad-input matrix: every public entry point and CLI subcommand against every bad input.

Python entry points must raise :class:`InvalidInputError` (a ``LabelDPError`` and a ``ValueError``)
with a one-line message that names the problem; the command line must exit with status 2 and print
exactly one line, starting with ``error:``, on stderr, and no traceback.

How the matrix is laid out:

- ``ENTRY_POINTS``: every public function with arguments that work (checked by
  ``test_valid_arguments_are_accepted``, so a bad case fails for its bad argument only).
- ``CASES``: per entry point, the bad arguments, each with a fragment of the expected message.
  Shared families (``epsilons``, ``labels``, ``priors``, ...) keep the kinds of bad input the same
  everywhere: epsilon <= 0, NaN, inf, absurdly large; labels out of range; K = 1; empty data;
  mismatched shapes; unknown names; priors that do not sum to one; wrong dtypes; counts <= 0.
- ``test_every_public_function_is_in_the_matrix`` fails when ``labeldp_core.mechanisms`` or
  ``labeldp_core.accounting`` exports a function without a row here: add its rows next to the
  others (see "Entry points merged separately" for DP-SGD).
- The command line: settings are enumerated from every mechanism's spec, so a new mechanism's
  settings are checked without a new row.

Accepted on purpose (not errors): ``alibi_posterior`` normalises a prior that does not sum to one
(the posterior is the same for any positive multiple of the prior, see
``test_alibi_prior_scale_does_not_change_the_posterior``); NaN in the points where a density or
CDF is evaluated gives NaN there, as in NumPy; a noise scale of 0 in ``noisy_argmax`` is the
documented "no privacy" case.
"""

import dataclasses
import math
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from labeldp_core import accounting, mechanisms
from labeldp_core.__main__ import main
from labeldp_core.audit import audit_cases, run_audit
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.errors import InvalidInputError, LabelDPError
from labeldp_core.experiments import MECHANISMS, RunConfig, lookup, make_config, run, sweep
from labeldp_core.experiments.spec import Setting

ROOT = Path(__file__).resolve().parents[1]
NAN, INF = math.nan, math.inf
RNG = np.random.default_rng(0)


@dataclass(frozen=True)
class Bad:
    """One bad argument: its name, its value, a fragment the message must contain, an id."""

    arg: str
    value: object
    match: str
    label: str


@dataclass(frozen=True)
class Entry:
    """A public function and keyword arguments with which it succeeds."""

    function: Callable[..., object]
    valid: Mapping[str, object]
    #: False where the valid call trains a model (too slow here; ``lookup`` checks the same config).
    try_valid: bool = True


# --- families of bad values ----------------------------------------------------------------------


def epsilons(arg: str = "epsilon") -> list[Bad]:
    """Bad privacy budgets, as :func:`labeldp_core.validation.check_epsilon` refuses them."""
    return [
        Bad(arg, 0.0, "greater than 0", "zero"),
        Bad(arg, -1.0, "greater than 0", "negative"),
        Bad(arg, NAN, "finite", "nan"),
        Bad(arg, INF, "finite", "inf"),
        Bad(arg, -INF, "finite", "-inf"),
        Bad(arg, 1e9, "too large", "huge"),
        Bad(arg, "1", "must be a number", "str"),
        Bad(arg, None, "must be a number", "none"),
        Bad(arg, True, "must be a number", "bool"),
    ]


def positives(arg: str, name: str | None = None) -> list[Bad]:
    """Bad scales, sensitivities and other finite numbers that must be above 0."""
    name = name or arg
    return [
        Bad(arg, 0.0, f"{name} must be a finite number greater than 0", "zero"),
        Bad(arg, -1.0, f"{name} must be a finite number greater than 0", "negative"),
        Bad(arg, NAN, f"{name} must be a finite number greater than 0", "nan"),
        Bad(arg, INF, f"{name} must be a finite number greater than 0", "inf"),
        Bad(arg, "1", f"{name} must be a number", "str"),
        Bad(arg, None, f"{name} must be a number", "none"),
    ]


def counts(arg: str, name: str | None = None) -> list[Bad]:
    """Bad counts of things (queries, steps, trials, k): whole numbers above 0."""
    name = name or arg
    return [
        Bad(arg, 0, f"{name} must be a finite number greater than 0", "zero"),
        Bad(arg, -3, f"{name} must be a finite number greater than 0", "negative"),
        Bad(arg, 2.5, f"{name} must be a whole number", "fraction"),
        Bad(arg, "3", f"{name} must be a number", "str"),
    ]


def probabilities(arg: str, name: str | None = None) -> list[Bad]:
    """Bad probabilities in (0, 1): delta, beta, shares."""
    name = name or arg
    return [
        Bad(arg, 0.0, f"{name} must lie in (0, 1)", "zero"),
        Bad(arg, 1.0, f"{name} must lie in (0, 1)", "one"),
        Bad(arg, 1.5, f"{name} must lie in (0, 1)", "above-one"),
        Bad(arg, -0.1, f"{name} must lie in (0, 1)", "negative"),
        Bad(arg, NAN, f"{name} must be a finite number", "nan"),
        Bad(arg, "0.5", f"{name} must be a finite number", "str"),
    ]


def num_classes(arg: str = "num_classes") -> list[Bad]:
    """Bad numbers of classes: K = 1 hides nothing; K must be a whole number."""
    return [
        Bad(arg, 1, "must be at least 2", "K=1"),
        Bad(arg, 0, "must be at least 2", "K=0"),
        Bad(arg, 2.5, "num_classes must be a whole number", "fraction"),
        Bad(arg, "3", "num_classes must be a whole number", "str"),
    ]


def labels(arg: str = "labels", size: int = 4) -> list[Bad]:
    """Bad class labels for K = 3, ``size`` of them where the length matters."""
    return [
        Bad(arg, [0, 1, 3, 1][:size] + [1] * (size - 4), "must lie in 0..2", "out-of-range"),
        Bad(arg, [-1, 1, 2, 1][:size] + [1] * (size - 4), "must lie in 0..2", "negative"),
        Bad(arg, np.array([], dtype=np.int64), "empty", "empty"),
        Bad(arg, [[0, 1], [1, 2]], "1-D", "2-D"),
        Bad(arg, [0.5, 1.0, 2.0, 1.0][:size], "whole numbers", "fractions"),
        Bad(arg, ["a", "b", "c", "d"][:size], "must be integers", "strings"),
        Bad(arg, [NAN, 1.0, 2.0, 1.0][:size], "must be integers", "nan"),
        Bad(arg, [True, False, True, False][:size], "must be integers", "bools"),
    ]


def vectors(arg: str, name: str = "noisy vectors") -> list[Bad]:
    """Bad (n, K) float arrays: wrong shape, K = 1, empty, non-finite, not numbers."""
    return [
        Bad(arg, [0.1, 0.9], "shape (n, K >= 2)", "1-D"),
        Bad(arg, np.zeros((0, 3)), "shape (n, K >= 2)", "empty"),
        Bad(arg, [[1.0], [0.0]], "shape (n, K >= 2)", "K=1"),
        Bad(arg, [[NAN, 0.5, 0.5]], f"{name} must be finite", "nan"),
        Bad(arg, [[INF, 0.5, 0.5]], f"{name} must be finite", "inf"),
        Bad(arg, [["a", "b", "c"]], "must hold real numbers", "strings"),
    ]


def priors(arg: str = "priors", rows: int = 4) -> list[Bad]:
    """Bad (n, K) prior rows for ``rows`` examples and K = 3."""
    uniform = np.full((rows, 3), 1 / 3)
    short = uniform.copy()
    short[0] = [0.5, 0.2, 0.1]
    negative = uniform.copy()
    negative[0] = [1.2, -0.1, -0.1]
    nan = uniform.copy()
    nan[0, 0] = NAN
    return [
        Bad(arg, short, "must sum to 1", "sum-below-one"),
        Bad(arg, uniform * 2, "must sum to 1", "sum-above-one"),
        Bad(arg, negative, "non-negative", "negative"),
        Bad(arg, nan, "finite", "nan"),
        Bad(arg, uniform[0], "2-D array", "1-D"),
        Bad(arg, np.zeros((0, 3)), "empty", "empty"),
        Bad(arg, np.ones((rows, 1)), "at least 2 columns", "K=1"),
        Bad(arg, np.full((rows, 3), "x"), "real numbers", "strings"),
        Bad(arg, uniform[:-1], "one row per example", "rows-mismatch"),
    ]


def vote_table(arg: str = "vote_counts") -> list[Bad]:
    """Bad (queries, K) vote counts."""
    return [
        Bad(arg, [3, 2, 1], "(queries, K)", "1-D"),
        Bad(arg, np.zeros((0, 3)), "(queries, K)", "empty"),
        Bad(arg, [[5], [5]], "(queries, K)", "K=1"),
        Bad(arg, [[5, -1, 2]], "non-negative", "negative"),
        Bad(arg, [[5, NAN, 2]], "finite numbers", "nan"),
        Bad(arg, [["5", "1", "2"]], "finite numbers", "strings"),
    ]


def value_ranges() -> list[Bad]:
    """Bad value ranges [low, high] for regression labels."""
    return [
        Bad("low", 2.0, "finite low < high", "low-above-high"),
        Bad("low", NAN, "finite low < high", "nan-low"),
        Bad("high", INF, "finite low < high", "inf-high"),
        Bad("low", "0", "low and high must be numbers", "str-low"),
        Bad("high", None, "low and high must be numbers", "none-high"),
    ]


def rngs() -> list[Bad]:
    """Something other than a numpy Generator where the DESIGN entry points take ``rng``."""
    return [
        Bad("rng", 0, "numpy.random.Generator", "seed"),
        Bad("rng", None, "numpy.random.Generator", "none"),
    ]


# --- valid arguments ------------------------------------------------------------------------------

LABELS = np.array([0, 1, 2, 1])
PRIORS = np.full((4, 3), 1 / 3)
NOISY = np.array([[0.9, 0.1, -0.2], [0.1, 1.2, 0.3]])
VOTES = np.array([[5, 3, 2], [1, 8, 1]])
PROBS = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
POINTS = np.array([[0.1, 0.2], [0.3, -0.1], [0.0, 0.5], [0.2, 0.2]])
SUPPORT = np.array([0.0, 1.0, 2.0])
PRIOR3 = np.array([0.2, 0.3, 0.5])
BINS = mechanisms.optimal_bins(SUPPORT, PRIOR3, 1.0)
M = mechanisms
A = accounting

ENTRY_POINTS: dict[str, Entry] = {
    # DESIGN.md's Python entry points.
    "randomized_response": Entry(
        M.randomized_response, {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG}
    ),
    "rr_with_prior": Entry(
        M.rr_with_prior, {"labels": LABELS, "priors": PRIORS, "epsilon": 1.0, "rng": RNG}
    ),
    "laplace_one_hot": Entry(
        M.laplace_one_hot, {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG}
    ),
    "laplace_regression": Entry(
        M.laplace_regression,
        {"values": SUPPORT, "epsilon": 1.0, "low": 0.0, "high": 2.0, "rng": RNG},
    ),
    "noisy_argmax": Entry(M.noisy_argmax, {"vote_counts": VOTES, "rng": RNG, "laplace_scale": 1.0}),
    "noisy_vote_counts": Entry(
        M.noisy_vote_counts, {"vote_counts": VOTES, "rng": RNG, "gaussian_sigma": 1.0}
    ),
    "pate_epsilon": Entry(
        A.pate_epsilon, {"vote_counts": VOTES, "delta": 1e-5, "aggregator": "gnmax", "noise": 2.0}
    ),
    # The engine.
    "make_config": Entry(make_config, {"mechanism": "rr", "dataset": "digits", "epsilon": 1.0}),
    "run": Entry(run, {"config": RunConfig("rr", "digits", 1.0, epochs=1)}, try_valid=False),
    "lookup": Entry(lookup, {"config": RunConfig("rr", "digits", 1.0, epochs=1)}),
    "sweep": Entry(
        sweep,
        {"mechanism": "rr", "dataset": "digits", "epsilons": [1.0], "seeds": [0], "epochs": 1},
        try_valid=False,
    ),
    "dataset_info": Entry(dataset_info, {"name": "digits"}),
    "load_dataset": Entry(load_dataset, {"name": "digits"}),
    "audit_cases": Entry(audit_cases, {"mechanism": "rr", "epsilon": 1.0}),
    "run_audit": Entry(
        run_audit, {"case": audit_cases("rr", 1.0)[0], "trials": 200, "rng": RNG, "alpha": 0.05}
    ),
    # labeldp_core.mechanisms: randomized response and RR with prior.
    "keep_probability": Entry(M.keep_probability, {"epsilon": 1.0, "num_classes": 3}),
    "expected_flip_rate": Entry(M.expected_flip_rate, {"epsilon": 1.0, "num_classes": 3}),
    "transition_matrix": Entry(M.transition_matrix, {"epsilon": 1.0, "num_classes": 3}),
    "optimal_set_size": Entry(M.optimal_set_size, {"priors": PRIORS, "epsilon": 1.0}),
    "expected_keep_probability": Entry(
        M.expected_keep_probability, {"priors": PRIORS, "epsilon": 1.0}
    ),
    "output_probabilities": Entry(
        M.output_probabilities, {"priors": PRIORS, "labels": LABELS, "epsilon": 1.0}
    ),
    "set_keep_probability": Entry(M.set_keep_probability, {"set_size": 2, "epsilon": 1.0}),
    # Laplace: closed forms, labels, post-processing.
    "laplace_scale": Entry(M.laplace_scale, {"sensitivity": 2.0, "epsilon": 1.0}),
    "laplace_epsilon": Entry(M.laplace_epsilon, {"sensitivity": 2.0, "scale": 1.0}),
    "laplace_variance": Entry(M.laplace_variance, {"scale": 1.0}),
    "laplace_density": Entry(M.laplace_density, {"x": [0.5, -1.0], "scale": 1.0}),
    "laplace_cdf": Entry(M.laplace_cdf, {"x": [0.5, -1.0], "scale": 1.0}),
    "tail_probability": Entry(M.tail_probability, {"threshold": 1.0, "scale": 1.0}),
    "epsilon_for_noise": Entry(
        M.epsilon_for_noise, {"magnitude": 1.0, "probability": 0.9, "sensitivity": 2.0}
    ),
    "argmax_accuracy": Entry(M.argmax_accuracy, {"epsilon": 1.0, "num_classes": 3}),
    "one_hot_log_density": Entry(
        M.one_hot_log_density, {"outputs": NOISY, "label": 1, "epsilon": 1.0}
    ),
    "expected_regression_mse": Entry(
        M.expected_regression_mse, {"values": SUPPORT, "epsilon": 1.0, "low": 0.0, "high": 2.0}
    ),
    "discrete_argmax_accuracy": Entry(M.discrete_argmax_accuracy, {"scale": 2.0, "num_classes": 3}),
    "discrete_one_hot_log_pmf": Entry(
        M.discrete_one_hot_log_pmf, {"outputs": [[1, 0, -2]], "label": 0, "scale": 2.0}
    ),
    "expected_discrete_regression_mse": Entry(
        M.expected_discrete_regression_mse, {"values": [0, 1, 2], "scale": 2.0, "low": 0, "high": 2}
    ),
    "regression_log_likelihood": Entry(
        M.regression_log_likelihood,
        {"outputs": SUPPORT, "value": 1.0, "epsilon": 1.0, "low": 0.0, "high": 2.0},
    ),
    "clamp_normalise": Entry(M.clamp_normalise, {"noisy": NOISY}),
    "clamp_round": Entry(M.clamp_round, {"noisy": NOISY}),
    "post_process": Entry(M.post_process, {"noisy": NOISY, "post": "soft"}),
    "alibi_posterior": Entry(M.alibi_posterior, {"noisy": NOISY, "epsilon": 1.0, "prior": PRIOR3}),
    # Softmax outputs (local DP).
    "laplace_outputs": Entry(
        M.laplace_outputs, {"probabilities": PROBS, "epsilon": 1.0, "rng": RNG}
    ),
    "actual_epsilon": Entry(M.actual_epsilon, {"epsilon": 1.0, "assumed_sensitivity": 1.0}),
    "epsilon_for_output_noise": Entry(
        M.epsilon_for_output_noise, {"magnitude": 0.5, "probability": 0.9}
    ),
    # RR-on-bins.
    "optimal_bins": Entry(M.optimal_bins, {"values": SUPPORT, "prior": PRIOR3, "epsilon": 1.0}),
    "best_constant_mse": Entry(M.best_constant_mse, {"values": SUPPORT, "prior": PRIOR3}),
    "expected_squared_error": Entry(M.expected_squared_error, {"bins": BINS, "prior": PRIOR3}),
    "rr_on_bins": Entry(M.rr_on_bins, {"values": SUPPORT, "bins": BINS, "rng": RNG}),
    "rr_bins_epsilon": Entry(M.rr_bins_epsilon, {"num_bins": 3, "epsilon": 1.0}),
    # PATE aggregation.
    "vote_counts": Entry(M.vote_counts, {"votes": [[0, 1], [2, 1]], "num_classes": 3}),
    "plurality": Entry(M.plurality, {"vote_counts": VOTES}),
    "top_two_gap": Entry(M.top_two_gap, {"vote_counts": VOTES}),
    "confident_gnmax": Entry(
        M.confident_gnmax,
        {
            "vote_counts": VOTES,
            "rng": RNG,
            "threshold": 5.0,
            "threshold_sigma": 1.0,
            "gaussian_sigma": 1.0,
        },
    ),
    # Label histograms and discrete Laplace noise.
    "label_counts": Entry(
        M.label_counts,
        {"groups": [0, 1, 0, 1], "labels": LABELS, "num_groups": 2, "num_classes": 3},
    ),
    "noisy_label_counts": Entry(
        M.noisy_label_counts,
        {
            "groups": [0, 1, 0, 1],
            "labels": LABELS,
            "num_groups": 2,
            "num_classes": 3,
            "epsilon": 1.0,
            "rng": RNG,
        },
    ),
    "prior_from_counts": Entry(M.prior_from_counts, {"counts": [[3, 1, 0], [0, -1, 0]]}),
    "discrete_laplace_noise": Entry(
        M.discrete_laplace_noise, {"shape": (3,), "epsilon": 1.0, "sensitivity": 2.0, "rng": RNG}
    ),
    "discrete_laplace_parameter": Entry(
        M.discrete_laplace_parameter, {"epsilon": 1.0, "sensitivity": 2.0}
    ),
    "discrete_laplace_pmf": Entry(
        M.discrete_laplace_pmf, {"values": [0, -2, 3], "epsilon": 1.0, "sensitivity": 2.0}
    ),
    "discrete_laplace_variance": Entry(
        M.discrete_laplace_variance, {"epsilon": 1.0, "sensitivity": 2.0}
    ),
    # Exponential mechanism and DP prototypes.
    "exponential_probabilities": Entry(
        M.exponential_probabilities,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0},
    ),
    "exponential_mechanism": Entry(
        M.exponential_mechanism,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
    ),
    "exponential_topk": Entry(
        M.exponential_topk,
        {"utilities": [[1.0, 2.0, 3.0]], "k": 2, "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
    ),
    "coinpress_mean": Entry(
        M.coinpress_mean, {"points": POINTS, "step_rhos": [0.5], "count": 4.0, "rng": RNG}
    ),
    "class_utilities": Entry(
        M.class_utilities,
        {"candidates": POINTS, "private": POINTS, "labels": LABELS, "num_classes": 3},
    ),
    "nearest_prototype": Entry(
        M.nearest_prototype, {"embeddings": POINTS, "prototypes": POINTS[:3]}
    ),
    "private_class_means": Entry(
        M.private_class_means,
        {"embeddings": POINTS, "labels": LABELS, "num_classes": 3, "rho": 0.5, "rng": RNG},
    ),
    "public_prototype_indices": Entry(
        M.public_prototype_indices, {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "rng": RNG}
    ),
    # labeldp_core.accounting.
    "sequential_composition": Entry(A.sequential_composition, {"epsilons": [0.5, 0.25]}),
    "parallel_composition": Entry(A.parallel_composition, {"epsilons": [0.5, 0.25]}),
    "split_budget": Entry(A.split_budget, {"total": 1.0, "prior_epsilon": 0.2}),
    "split_budget_by_share": Entry(A.split_budget_by_share, {"total": 1.0, "prior_share": 0.2}),
    "pate_rdp": Entry(A.pate_rdp, {"vote_counts": VOTES, "aggregator": "gnmax", "noise": 2.0}),
    "epsilon_as_queries_grow": Entry(
        A.epsilon_as_queries_grow,
        {
            "vote_counts": VOTES,
            "delta": 1e-5,
            "checkpoints": [1, 2],
            "aggregator": "gnmax",
            "noise": 2.0,
        },
    ),
    "data_independent_epsilon": Entry(
        A.data_independent_epsilon,
        {"queries": 10, "delta": 1e-5, "aggregator": "gnmax", "noise": 20.0},
    ),
    "calibrate_noise": Entry(
        A.calibrate_noise, {"epsilon": 1.0, "queries": 10, "delta": 1e-5, "aggregator": "gnmax"}
    ),
    "epsilon_from_rdp": Entry(
        A.epsilon_from_rdp, {"rdp": np.full(A.ORDERS.shape, 0.01), "delta": 1e-5}
    ),
    "gaussian_sigma": Entry(A.gaussian_sigma, {"sensitivity": 1.0, "rho": 0.5}),
    "gaussian_zcdp": Entry(A.gaussian_zcdp, {"sensitivity": 1.0, "sigma": 1.0}),
    "group_zcdp": Entry(A.group_zcdp, {"rho": 0.5, "group_size": 2}),
    "zcdp_of_pure_dp": Entry(A.zcdp_of_pure_dp, {"epsilon": 1.0}),
    "zcdp_to_approx_dp": Entry(A.zcdp_to_approx_dp, {"rho": 0.5, "delta": 1e-5}),
}

ONE_HOT_OUTPUT_CASES = [Bad("outputs", [["a", "b", "c"]], "must hold real numbers", "strings")]
BAD_CONFIGS = [
    Bad("config", RunConfig("rr", "digits", -1.0), "greater than 0", "negative-epsilon"),
    Bad("config", RunConfig("rr", "digits", NAN), "finite", "nan-epsilon"),
    Bad("config", RunConfig("magic", "digits", 1.0), "unknown mechanism", "unknown-mechanism"),
    Bad("config", RunConfig("rr", "cifar", 1.0), "unknown dataset", "unknown-dataset"),
    Bad("config", RunConfig("rr", "digits", 1.0, seed=-5), "seed must be", "negative-seed"),
    Bad("config", RunConfig("rr", "digits", 1.0, epochs=0), "epochs must be", "zero-epochs"),
    Bad("config", RunConfig("rr", "digits", 1.0, settings=(("x", 1),)), "unknown setting", "x"),
    Bad("config", {"mechanism": "rr"}, "RunConfig", "dict"),
]

CASES: dict[str, list[Bad]] = {
    "randomized_response": [*epsilons(), *labels(), *num_classes(), *rngs()],
    "rr_with_prior": [*epsilons(), *labels(), *priors(), *rngs()],
    "laplace_one_hot": [*epsilons(), *labels(), *num_classes(), *rngs()],
    "laplace_regression": [
        *epsilons(),
        *value_ranges(),
        *rngs(),
        Bad("values", [0.0, 3.0], "must lie in [0, 2]", "out-of-range"),
        Bad("values", [-1.0], "must lie in [0, 2]", "below-range"),
        Bad("values", [], "empty", "empty"),
        Bad("values", [NAN, 1.0], "finite numbers", "nan"),
        Bad("values", ["a", "b"], "finite numbers", "strings"),
    ],
    "noisy_argmax": [
        *vote_table(),
        *rngs(),
        Bad("laplace_scale", -1.0, "laplace_scale must be a finite number >= 0", "negative"),
        Bad("laplace_scale", NAN, "laplace_scale must be a finite number >= 0", "nan"),
        Bad("laplace_scale", "1", "laplace_scale must be a number", "str"),
        Bad("laplace_scale", None, "give exactly one of laplace_scale", "neither"),
        Bad("gaussian_sigma", 1.0, "give exactly one of laplace_scale", "both"),
    ],
    "noisy_vote_counts": [
        *vote_table(),
        *rngs(),
        Bad("gaussian_sigma", -1.0, "gaussian_sigma must be a finite number >= 0", "negative"),
        Bad("gaussian_sigma", "1", "gaussian_sigma must be a number", "str"),
        Bad("laplace_scale", 1.0, "give exactly one of laplace_scale", "both"),
        Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
    ],
    "pate_epsilon": [
        *vote_table(),
        *probabilities("delta"),
        *positives("noise"),
        Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
        Bad("threshold", 5.0, "apply to confident-gnmax only", "threshold-for-gnmax"),
        Bad("aggregator", "confident-gnmax", "needs threshold", "confident-without-threshold"),
    ],
    "make_config": [
        *epsilons(),
        Bad("mechanism", "magic", "unknown mechanism 'magic'; choose one of: rr", "unknown"),
        Bad("mechanism", None, "unknown mechanism", "none"),
        Bad("mechanism", ["rr"], "unknown mechanism", "list"),
        Bad("dataset", "cifar", "unknown dataset 'cifar'; choose one of: digits", "unknown"),
        Bad("dataset", ["digits"], "unknown dataset", "list"),
        Bad("seed", -5, "seed must be a whole number in 0..2^32-1", "negative"),
        Bad("seed", 2**32, "seed must be a whole number in 0..2^32-1", "huge"),
        Bad("seed", 1.5, "seed must be a whole number in 0..2^32-1", "fraction"),
        Bad("seed", "0", "seed must be a whole number in 0..2^32-1", "str"),
        Bad("epochs", 0, "epochs must be a whole number in 1..1000", "zero"),
        Bad("epochs", -2, "epochs must be a whole number in 1..1000", "negative"),
        Bad("epochs", 10**6, "epochs must be a whole number in 1..1000", "huge"),
        Bad("epochs", 2.5, "epochs must be a whole number in 1..1000", "fraction"),
        Bad("settings", {"colour": "red"}, "unknown setting(s) colour", "unknown-setting"),
        Bad("settings", {"model": "resnet"}, "choose one of: cnn, mlp, logistic", "bad-choice"),
        Bad("settings", {"batch_size": 0}, "setting batch_size must be at least 1", "zero"),
        Bad("settings", {"learning_rate": NAN}, "must be a finite number", "nan"),
        Bad("settings", {"batch_size": "many"}, "setting batch_size must be a whole", "str"),
        Bad("settings", ["model=mlp"], "settings must be a mapping", "list"),
    ],
    "run": BAD_CONFIGS,
    "lookup": BAD_CONFIGS,
    "sweep": [
        Bad("epsilons", [], "a sweep's epsilons must not be empty; give at least one", "empty"),
        Bad("epsilons", [1.0, -1.0], "greater than 0", "one-negative"),
        Bad("epsilons", [NAN], "finite", "nan"),
        Bad("epsilons", 1.0, "a sweep's epsilons must be a list", "scalar"),
        Bad("seeds", [], "a sweep's seeds must not be empty; give at least one", "empty-seeds"),
        Bad("seeds", [0, -1], "seed must be", "negative-seed"),
        Bad("seeds", 0, "a sweep's seeds must be a list", "scalar-seed"),
        Bad("mechanism", "magic", "unknown mechanism", "unknown-mechanism"),
        Bad("dataset", "cifar", "unknown dataset", "unknown-dataset"),
    ],
    "dataset_info": [Bad("name", "cifar", "unknown dataset 'cifar'; choose one of", "unknown")],
    "load_dataset": [Bad("name", "cifar", "unknown dataset 'cifar'; choose one of", "unknown")],
    "audit_cases": [
        *epsilons(),
        Bad("mechanism", "magic", "no audit for mechanism 'magic'", "unknown"),
    ],
    "run_audit": [
        *counts("trials"),
        *probabilities("alpha"),
        Bad("trials", 10**13, "trials must be at most", "huge"),
    ],
    "keep_probability": [*epsilons(), *num_classes()],
    "expected_flip_rate": [*epsilons(), *num_classes()],
    "transition_matrix": [*epsilons(), *num_classes()],
    "optimal_set_size": [*epsilons(), *priors()[:-1]],
    "expected_keep_probability": [*epsilons(), *priors()[:-1]],
    "output_probabilities": [*epsilons(), *labels(), *priors()],
    "set_keep_probability": [
        *epsilons(),
        Bad("set_size", 0, "set sizes must be whole numbers >= 1", "zero"),
        Bad("set_size", [2, -1], "set sizes must be whole numbers >= 1", "negative"),
        Bad("set_size", 1.5, "set sizes must be whole numbers >= 1", "fraction"),
        Bad("set_size", NAN, "set sizes must be whole numbers >= 1", "nan"),
        Bad("set_size", "2", "set sizes must be whole numbers >= 1", "str"),
    ],
    "laplace_scale": [*epsilons(), *positives("sensitivity")],
    "laplace_epsilon": [*positives("sensitivity"), *positives("scale")],
    "laplace_variance": positives("scale"),
    "laplace_density": [*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    "laplace_cdf": [*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    "tail_probability": [
        *positives("scale"),
        Bad("threshold", -1.0, "t must be a finite number >= 0", "negative"),
        Bad("threshold", NAN, "t must be a finite number >= 0", "nan"),
        Bad("threshold", "1", "must hold real numbers", "str"),
    ],
    "epsilon_for_noise": [
        *positives("magnitude", "noise magnitude t"),
        *probabilities("probability", "probability p"),
        *positives("sensitivity"),
    ],
    "argmax_accuracy": [*epsilons(), *num_classes()],
    "one_hot_log_density": [
        *epsilons(),
        *ONE_HOT_OUTPUT_CASES,
        Bad("label", 3, "must lie in 0..2", "out-of-range"),
        Bad("label", -1, "must lie in 0..2", "negative"),
        Bad("label", 0.5, "whole numbers", "fraction"),
        Bad("outputs", [[0.5], [0.2]], "shape (n, K >= 2)", "K=1"),
    ],
    "expected_regression_mse": [
        *epsilons(),
        *value_ranges(),
        Bad("values", [0.0, 3.0], "must lie in [0, 2]", "out-of-range"),
        Bad("values", [], "empty", "empty"),
    ],
    "discrete_argmax_accuracy": [
        *positives("scale"),
        *num_classes(),
        Bad("scale", 1e6, "sums 40 scales each way", "too-large"),
    ],
    "discrete_one_hot_log_pmf": [
        *positives("scale"),
        Bad("label", 3, "must lie in 0..2", "out-of-range"),
        Bad("label", -1, "must lie in 0..2", "negative"),
    ],
    "expected_discrete_regression_mse": [
        *positives("scale"),
        Bad("values", [0, 3], "must lie in", "out-of-range"),
        Bad("values", [0.5], "fractional parts", "fraction"),
    ],
    "regression_log_likelihood": [
        *epsilons(),
        *value_ranges(),
        Bad("value", 5.0, "must lie in [0, 2]", "value-out-of-range"),
        Bad("outputs", [NAN], "finite numbers", "nan-outputs"),
    ],
    "clamp_normalise": vectors("noisy"),
    "clamp_round": vectors("noisy"),
    "post_process": [
        *vectors("noisy"),
        Bad("post", "median", "unknown post-processing 'median'; choose one of", "unknown"),
    ],
    "alibi_posterior": [
        *epsilons(),
        *vectors("noisy"),
        Bad("prior", [0.5, 0.5], "the prior must have shape", "wrong-shape"),
        Bad("prior", [0.5, -0.1, 0.6], "non-negative", "negative"),
        Bad("prior", [0.0, 0.0, 0.0], "positive mass", "zero-mass"),
        Bad("prior", [NAN, 0.5, 0.5], "finite", "nan"),
        Bad("prior", ["a", "b", "c"], "must hold real numbers", "strings"),
    ],
    "laplace_outputs": [
        *epsilons(),
        *[
            Bad(b.arg, b.value, b.match.replace("noisy vectors", "probabilities"), b.label)
            for b in vectors("probabilities", "probabilities")
        ],
        Bad("probabilities", [[0.5, 0.2, 0.1]], "must sum to one", "sum-below-one"),
        Bad("probabilities", [[1.2, -0.1, -0.1]], "non-negative", "negative"),
    ],
    "actual_epsilon": [*epsilons(), *positives("assumed_sensitivity", "sensitivity")],
    "epsilon_for_output_noise": [
        *positives("magnitude", "noise magnitude t"),
        *probabilities("probability", "probability p"),
    ],
    "optimal_bins": [
        *epsilons(),
        Bad("values", [], "non-empty 1-D array", "empty"),
        Bad("values", [0.0, 2.0, 1.0], "strictly increasing", "unsorted"),
        Bad("values", [0.0, NAN, 2.0], "finite numbers", "nan"),
        Bad("values", ["a", "b", "c"], "must hold real numbers", "strings"),
        Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
        Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
        Bad("prior", [-0.1, 0.6, 0.5], "non-negative", "negative"),
    ],
    "best_constant_mse": [
        Bad("values", [], "non-empty 1-D array", "empty"),
        Bad("values", [0.0, 2.0, 1.0], "strictly increasing", "unsorted"),
        Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
        Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
    ],
    "expected_squared_error": [
        Bad("prior", [0.2, 0.2, 0.2], "sum to one", "sum-below-one"),
        Bad("prior", [0.5, 0.5], "one probability per value", "too-short"),
        Bad("prior", [NAN, 0.5, 0.5], "sum to one", "nan"),
        Bad("bins", "bins", "bins must be an RRBins", "str"),
    ],
    "rr_on_bins": [
        Bad("values", [0.5], "one of the values the bins were built for", "not-a-bin-value"),
        Bad("values", [NAN], "one of the values the bins were built for", "nan"),
        Bad("values", [], "non-empty 1-D array", "empty"),
        Bad("values", [[0.0, 1.0]], "non-empty 1-D array", "2-D"),
        Bad("values", ["a"], "must hold real numbers", "strings"),
        Bad("bins", "bins", "bins must be an RRBins", "str"),
    ],
    "rr_bins_epsilon": [*epsilons(), *counts("num_bins")],
    "vote_counts": [
        *num_classes(),
        Bad("votes", [[0, 3]], "must lie in 0..2", "out-of-range"),
        Bad("votes", [[0, -1]], "must lie in 0..2", "negative"),
        Bad("votes", [[0.0, 1.0]], "integer class indices", "floats"),
        Bad("votes", np.zeros((0, 2), dtype=int), "non-empty (teachers, queries)", "empty"),
        Bad("votes", [0, 1], "non-empty (teachers, queries)", "1-D"),
    ],
    "plurality": vote_table(),
    "top_two_gap": vote_table(),
    "confident_gnmax": [
        *vote_table(),
        Bad("threshold", NAN, "threshold must be finite", "nan-threshold"),
        Bad("threshold", "5", "threshold must be a number of votes", "str-threshold"),
        Bad("threshold_sigma", -1.0, "threshold_sigma must be a finite number >= 0", "negative"),
        Bad("gaussian_sigma", INF, "gaussian_sigma must be a finite number >= 0", "inf"),
    ],
    "label_counts": [
        *num_classes(),
        *labels(),
        Bad("groups", [0, 2, 0, 1], "integer group ids in 0..1", "out-of-range"),
        Bad("groups", [0.0, 1.0, 0.0, 1.0], "integer group ids in 0..1", "floats"),
        Bad("groups", [0, 1], "same length", "mismatched"),
        *counts("num_groups"),
    ],
    "noisy_label_counts": [
        *epsilons(),
        *labels(),
        Bad("groups", [0, 1], "same length", "mismatched"),
    ],
    "prior_from_counts": [
        Bad("counts", [3, 1, 0], "counts must be a (groups, K) array", "1-D"),
        Bad("counts", [[3], [1]], "counts must be a (groups, K) array", "K=1"),
        Bad("counts", np.zeros((0, 3)), "counts must be a (groups, K) array", "empty"),
        Bad("counts", [[3, NAN, 0]], "counts must be finite", "nan"),
        Bad("counts", [["3", "1", "0"]], "must hold real numbers", "strings"),
    ],
    "discrete_laplace_noise": [
        *epsilons(),
        *positives("sensitivity"),
        Bad("shape", -1, "shape must be", "negative"),
        Bad("shape", (2, -3), "shape must be", "negative-axis"),
        Bad("shape", 2.5, "shape must be", "fraction"),
        Bad("shape", "3", "shape must be", "str"),
    ],
    "discrete_laplace_parameter": [*epsilons(), *positives("sensitivity")],
    "discrete_laplace_pmf": [
        *epsilons(),
        *positives("sensitivity"),
        Bad("values", [0.5], "whole numbers", "fraction"),
        Bad("values", [NAN], "whole numbers", "nan"),
        Bad("values", ["a"], "must hold real numbers", "strings"),
    ],
    "discrete_laplace_variance": [*epsilons(), *positives("sensitivity")],
    "exponential_probabilities": [
        *epsilons(),
        *positives("sensitivity"),
        Bad("utilities", [], "non-empty", "empty"),
        Bad("utilities", np.zeros((1, 2, 3)), "non-empty 1-D array", "3-D"),
        Bad("utilities", [[1.0, NAN]], "finite numbers", "nan"),
        Bad("utilities", [["a", "b"]], "must hold real numbers", "strings"),
    ],
    "exponential_mechanism": [*epsilons(), Bad("utilities", [[INF, 1.0]], "finite", "inf")],
    "exponential_topk": [
        *epsilons(),
        *counts("k"),
        Bad("k", 4, "k=4 is larger than the number of items (3)", "too-large"),
    ],
    "coinpress_mean": [
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
    "class_utilities": [
        *num_classes(),
        *labels(),
        Bad("candidates", np.zeros((4, 3)), "must share d", "d-mismatch"),
        Bad("private", POINTS[:3], "private has 3 rows but labels has 4", "rows-mismatch"),
        Bad("candidates", [["a", "b"]], "must hold real numbers", "strings"),
        Bad("private", [[NAN, 0.0]] * 4, "private must be finite", "nan"),
        Bad("min_score", 3.0, "0 <= min_score < max_score <= 2", "min-above-two"),
    ],
    "nearest_prototype": [
        Bad("prototypes", np.zeros((3, 5)), "must share d", "d-mismatch"),
        Bad("prototypes", np.zeros((0, 2)), "at least one prototype", "empty"),
        Bad("embeddings", [0.1, 0.2], "embeddings must be an (n, d) array", "1-D"),
        Bad("embeddings", [["a", "b"]], "must hold real numbers", "strings"),
        Bad("prototypes", [[NAN, 1.0]], "prototypes must be finite", "nan"),
    ],
    "private_class_means": [
        *num_classes(),
        *labels(),
        *positives("rho"),
        *counts("steps"),
        Bad("embeddings", POINTS[:3], "one row per label", "rows-mismatch"),
        Bad("embeddings", [["a", "b"]] * 4, "must hold real numbers", "strings"),
        Bad("count_share", 1.5, "count_share must lie in (0, 1)", "share-above-one"),
    ],
    "public_prototype_indices": [
        *epsilons(),
        *counts("k"),
        Bad("k", 5, "larger than the number of items", "too-large"),
        Bad("utilities", [[NAN, 1.0]], "finite", "nan"),
    ],
    "sequential_composition": [
        Bad("epsilons", [], "epsilons must not be empty", "empty"),
        Bad("epsilons", [0.5, -1.0], "finite and >= 0", "negative"),
        Bad("epsilons", [NAN], "finite and >= 0", "nan"),
        Bad("epsilons", [INF], "finite and >= 0", "inf"),
        Bad("epsilons", ["a"], "every epsilon must be a number", "strings"),
        Bad("epsilons", 1.0, "epsilons must be a list", "scalar"),
    ],
    "parallel_composition": [
        Bad("epsilons", [], "epsilons must not be empty", "empty"),
        Bad("epsilons", [-1.0], "finite and >= 0", "negative"),
        Bad("epsilons", None, "epsilons must be a list", "none"),
    ],
    "split_budget": [
        *epsilons("total"),
        Bad("prior_epsilon", 1.0, "leaves no budget for the release", "all-of-it"),
        Bad("prior_epsilon", 5.0, "leaves no budget for the release", "more-than-all"),
        Bad("prior_epsilon", -0.1, "prior_epsilon must be a finite number >= 0", "negative"),
        Bad("prior_epsilon", NAN, "prior_epsilon must be a finite number >= 0", "nan"),
        Bad("prior_epsilon", "a", "prior_epsilon must be a finite number >= 0", "str"),
    ],
    "split_budget_by_share": [
        *epsilons("total"),
        *[b for b in probabilities("prior_share") if b.label != "zero"],
    ],
    "pate_rdp": [
        *vote_table(),
        *positives("noise"),
        Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
        Bad("answered", [True, False], "apply to confident-gnmax only", "answered-for-gnmax"),
    ],
    "epsilon_as_queries_grow": [
        *probabilities("delta"),
        Bad("checkpoints", [0], "checkpoints must be query counts in 1..2", "zero"),
        Bad("checkpoints", [3], "checkpoints must be query counts in 1..2", "too-many"),
        Bad("checkpoints", [], "checkpoints must be query counts in 1..2", "empty"),
        Bad("checkpoints", [1.5], "checkpoints must be query counts in 1..2", "fraction"),
        Bad("checkpoints", ["a"], "checkpoints must be query counts in 1..2", "strings"),
    ],
    "data_independent_epsilon": [
        *counts("queries"),
        *probabilities("delta"),
        *positives("noise"),
        Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
        Bad("aggregator", "confident-gnmax", "needs threshold_sigma", "confident-no-sigma"),
    ],
    "calibrate_noise": [
        *epsilons(),
        *counts("queries"),
        *probabilities("delta"),
        *positives("threshold_noise_ratio"),
        Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
    ],
    "epsilon_from_rdp": [
        *probabilities("delta"),
        Bad("rdp", np.full(A.ORDERS.shape, NAN), "rdp must not be NaN or negative", "nan"),
        Bad("rdp", np.full(A.ORDERS.shape, -1.0), "rdp must not be NaN or negative", "negative"),
        Bad("rdp", [0.5, 0.5], "one value per order", "too-short"),
        Bad("orders", np.linspace(0.5, 3, A.ORDERS.size), "orders must be", "order-below-one"),
    ],
    "gaussian_sigma": [*positives("sensitivity"), *positives("rho")],
    "gaussian_zcdp": [*positives("sensitivity"), *positives("sigma")],
    "group_zcdp": [*positives("rho"), *counts("group_size")],
    "zcdp_of_pure_dp": positives("epsilon"),
    "zcdp_to_approx_dp": [*positives("rho"), *probabilities("delta")],
}

# --- DP-SGD's accounting entry points ------------------------------------------------------------
# The command-line part below enumerates every mechanism in the registry, so `dpsgd`'s settings
# need no rows here.
ENTRY_POINTS["dpsgd_epsilon"] = Entry(
    accounting.dpsgd_epsilon,
    {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 100, "delta": 1e-5},
)
CASES["dpsgd_epsilon"] = [
    *[Bad("noise_multiplier", b.value, "noise_multiplier", b.label) for b in positives("x")],
    *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, -0.1, 1.5, NAN)],
    *[Bad("steps", b.value, "steps", b.label) for b in counts("x")],
    *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
    Bad("accountant", "magic", "accountant", "unknown-accountant"),
]
ENTRY_POINTS["dpsgd_epsilon_curve"] = Entry(
    accounting.dpsgd_epsilon_curve,
    {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": [10, 100], "delta": 1e-5},
)
CASES["dpsgd_epsilon_curve"] = [
    *[Bad("noise_multiplier", b.value, "noise_multiplier", b.label) for b in positives("x")],
    *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, 1.5, NAN)],
    *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
    Bad("steps", [10, 0], "steps", "zero-steps"),
]
ENTRY_POINTS["sampling_schedule"] = Entry(
    accounting.sampling_schedule, {"n_examples": 1000, "batch_size": 100, "epochs": 2}
)
CASES["sampling_schedule"] = [
    Bad("batch_size", 2000, "larger than the 1000 training examples", "batch-too-large"),
    Bad("batch_size", 0, "at least 1", "zero-batch"),
    Bad("epochs", 1.5, "whole number", "fractional-epochs"),
    Bad("n_examples", -3, "at least 1", "negative-examples"),
]
ENTRY_POINTS["calibrate_noise_multiplier"] = Entry(
    accounting.calibrate_noise_multiplier,
    {"target_epsilon": 1.0, "delta": 1e-5, "sample_rate": 0.01, "steps": 100},
)
CASES["calibrate_noise_multiplier"] = [
    *epsilons("target_epsilon"),
    *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
    *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, 1.5, NAN)],
    Bad("steps", 0, "steps", "zero-steps"),
    Bad("accountant", "magic", "accountant", "unknown-accountant"),
]


def _matrix() -> list:
    return [
        pytest.param(name, bad, id=f"{name}-{bad.arg}-{bad.label}")
        for name, bads in CASES.items()
        for bad in bads
    ]


def _assert_clear(message: str) -> None:
    assert message.strip(), "empty message"
    assert "\n" not in message, f"message spans several lines: {message!r}"
    assert "Traceback" not in message


@pytest.mark.parametrize("name", [n for n, e in ENTRY_POINTS.items() if e.try_valid])
def test_valid_arguments_are_accepted(name):
    # The valid call succeeds and gives finite numbers: the bad values next to it are refused
    # for themselves, not because the rest of the call was wrong.
    entry = ENTRY_POINTS[name]
    assert _finite(entry.function(**entry.valid)), name


def _finite(value: object) -> bool:
    """Whether every number in ``value`` (arrays, containers, dataclasses) is finite."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_finite(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.number):
        return bool(np.all(np.isfinite(value)))
    if isinstance(value, float | np.floating):
        return bool(np.isfinite(value))
    return True


@pytest.mark.parametrize(("name", "bad"), _matrix())
def test_bad_input_raises_a_clear_invalid_input_error(name, bad):
    entry = ENTRY_POINTS[name]
    arguments = dict(entry.valid) | {bad.arg: bad.value}
    with pytest.raises(InvalidInputError) as raised:
        entry.function(**arguments)
    message = str(raised.value)
    _assert_clear(message)
    assert bad.match in message, message


def test_invalid_input_error_is_a_value_error_and_a_labeldp_error():
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(InvalidInputError, LabelDPError)


def test_every_public_function_is_in_the_matrix():
    covered = {entry.function for entry in ENTRY_POINTS.values()}
    missing = [
        f"{module.__name__}.{name}"
        for module in (mechanisms, accounting)
        for name in module.__all__
        if callable(obj := getattr(module, name))
        and not isinstance(obj, type)
        and obj not in covered
    ]
    assert not missing, f"add rows for these entry points to ENTRY_POINTS and CASES: {missing}"
    assert all(CASES.get(name) for name in ENTRY_POINTS), "every entry point needs bad cases"


def test_alibi_prior_scale_does_not_change_the_posterior():
    # Accepted on purpose: ALIBI's posterior is invariant to the prior's scale.
    normalised = M.alibi_posterior(NOISY, 1.0, PRIOR3)
    np.testing.assert_allclose(M.alibi_posterior(NOISY, 1.0, PRIOR3 * 7), normalised)


# --- the command line -----------------------------------------------------------------------------


def _bad_setting_values(name: str, setting: Setting) -> list[tuple[str, str]]:
    """(value, label) pairs that ``--set name=value`` must refuse."""
    kind = type(setting.default)
    values = []
    if setting.choices:
        values.append(("not-a-choice", "choice"))
    if kind is bool:
        values.append(("maybe", "not-bool"))
    if kind in (int, float):
        values.append(("abc", "not-a-number"))
    if kind is int:
        values.append(("1.5", "fraction"))
    if kind is float:
        values += [("nan", "nan"), ("inf", "inf")]
    if setting.minimum is not None:
        values.append((f"{kind(setting.minimum - 1)}", "below-minimum"))
    if setting.maximum is not None:
        values.append((f"{kind(setting.maximum + 1)}", "above-maximum"))
    return values


def _setting_cases() -> list:
    return [
        pytest.param(
            ["run", mechanism, "--dataset", "digits", "--epsilon", "1", "--set", f"{name}={value}"],
            f"setting {name}",
            id=f"run-{mechanism}-{name}-{label}",
        )
        for mechanism, spec in MECHANISMS.items()
        for name, setting in spec.all_settings().items()
        for value, label in _bad_setting_values(name, setting)
    ]


def _epsilon_cases() -> list:
    # "-inf" would read as an option, so argparse refuses it first; "--epsilon=-inf" is below.
    bad = [
        ("0", "greater than 0"),
        ("-1", "greater than 0"),
        ("nan", "finite"),
        ("inf", "finite"),
        ("1e9", "too large"),
        ("1e400", "finite"),
        ("one", "invalid float"),
    ]
    cases = [
        pytest.param(
            ["run", mechanism, "--dataset", "digits", "--epsilon", value],
            match,
            id=f"run-{mechanism}-epsilon={value}",
        )
        for mechanism in MECHANISMS
        for value, match in bad
    ]
    cases += [
        pytest.param(["audit", "rr", "--epsilon", value], match, id=f"audit-epsilon={value}")
        for value, match in bad
    ]
    cases += [
        pytest.param(
            ["sweep", "rr", "--dataset", "digits", "--epsilons", "1", value],
            match,
            id=f"sweep-epsilons=1,{value}",
        )
        for value, match in bad
    ]
    return cases


RUN = ["run", "rr", "--dataset", "digits", "--epsilon", "1"]
SWEEP = ["sweep", "rr", "--dataset", "digits", "--epsilons", "1"]
CLI_CASES = [
    # No or unknown subcommand.
    pytest.param([], "required: command", id="no-command"),
    pytest.param(["frobnicate"], "invalid choice", id="unknown-command"),
    # list
    pytest.param(["list", "--bogus"], "unrecognized arguments", id="list-unknown-option"),
    pytest.param(["list", "extra"], "unrecognized arguments", id="list-extra-argument"),
    # run
    pytest.param(
        ["run", "magic", "--dataset", "digits", "--epsilon", "1"],
        "unknown mechanism",
        id="run-unknown-mechanism",
    ),
    pytest.param(
        ["run", "rr", "--dataset", "cifar", "--epsilon", "1"],
        "unknown dataset",
        id="run-unknown-dataset",
    ),
    pytest.param(
        ["run", "rr", "--dataset", "mnist", "--epsilon", "1"],
        "not on this machine",
        id="run-missing-dataset",
    ),
    pytest.param(["run", "rr", "--epsilon", "1"], "required: --dataset", id="run-no-dataset"),
    pytest.param(["run", "rr", "--dataset", "digits"], "required: --epsilon", id="run-no-epsilon"),
    pytest.param(
        ["run", "rr", "--dataset", "digits", "--epsilon=-inf"], "finite", id="run-epsilon=-inf"
    ),
    pytest.param([*RUN, "--seed", "-5"], "seed must be", id="run-negative-seed"),
    pytest.param([*RUN, "--seed", "4294967296"], "seed must be", id="run-huge-seed"),
    pytest.param([*RUN, "--seed", "abc"], "invalid int value", id="run-str-seed"),
    pytest.param([*RUN, "--epochs", "0"], "epochs must be", id="run-zero-epochs"),
    pytest.param([*RUN, "--epochs", "-3"], "epochs must be", id="run-negative-epochs"),
    pytest.param([*RUN, "--epochs", "100000"], "epochs must be", id="run-huge-epochs"),
    pytest.param([*RUN, "--epochs", "2.5"], "invalid int value", id="run-fraction-epochs"),
    pytest.param([*RUN, "--set", "model"], "KEY=VALUE", id="run-set-without-value"),
    pytest.param([*RUN, "--set", "=3"], "KEY=VALUE", id="run-set-without-key"),
    pytest.param([*RUN, "--set", "colour=red"], "unknown setting", id="run-unknown-setting"),
    pytest.param(
        ["run", "rr-prior", "--dataset", "digits", "--epsilon", "1", "--set", "prior_epsilon=2"],
        "leaves no budget",
        id="run-rr-prior-budget-overspent",
    ),
    pytest.param(
        [
            "run",
            "dppl-public",
            "--dataset",
            "digits",
            "--epsilon",
            "1",
            "--set",
            "min_score=1.5",
            "--set",
            "max_score=1.0",
        ],
        "min_score < max_score",
        id="run-dppl-public-empty-score-window",
    ),
    # sweep
    pytest.param(
        ["sweep", "rr", "--dataset", "digits", "--epsilons"],
        "expected at least one",
        id="sweep-no-epsilons",
    ),
    pytest.param([*SWEEP, "--seeds"], "expected at least one", id="sweep-no-seeds"),
    pytest.param([*SWEEP, "--seeds", "0", "-1"], "seed must be", id="sweep-negative-seed"),
    pytest.param(
        ["sweep", "magic", "--dataset", "digits", "--epsilons", "1"],
        "unknown mechanism",
        id="sweep-unknown-mechanism",
    ),
    pytest.param(
        [*SWEEP, "--csv", "/nonexistent-folder/out.csv"],
        "does not exist",
        id="sweep-csv-into-missing-folder",
    ),
    pytest.param(
        [*SWEEP, "--html", "/nonexistent-folder/out.html"],
        "does not exist",
        id="sweep-html-into-missing-folder",
    ),
    pytest.param([*SWEEP, "--csv", "."], "is a folder", id="sweep-csv-onto-a-folder"),
    # warm
    pytest.param(["warm", "--dataset", "cifar"], "unknown dataset", id="warm-unknown-dataset"),
    pytest.param(["warm", "--dataset", "mnist"], "not on this machine", id="warm-missing-dataset"),
    # audit
    pytest.param(
        ["audit", "magic", "--epsilon", "1"], "no audit for mechanism", id="audit-unknown-mechanism"
    ),
    pytest.param(["audit", "rr"], "required: --epsilon", id="audit-no-epsilon"),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "0"], "trials must be", id="audit-zero-trials"
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "-5"],
        "trials must be",
        id="audit-negative-trials",
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "10000000000000"],
        "trials must be at most",
        id="audit-huge-trials",
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--seed", "-1"], "seed must be", id="audit-negative-seed"
    ),
    *_epsilon_cases(),
    *_setting_cases(),
]


def _exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stopped:
        return stopped.code


@pytest.mark.parametrize(("argv", "match"), CLI_CASES)
def test_cli_bad_input_exits_2_with_one_error_line(argv, match, capsys, no_local_mnist):
    status = _exit_status(argv)
    captured = capsys.readouterr()
    assert status == 2, captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ")
    assert match in lines[0], lines[0]
    assert "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "rr", "--epsilon", "1", "--seed", "-1"],
        ["sweep", "rr", "--dataset", "digits", "--epsilons", "1", "--csv", "/nonexistent/x.csv"],
    ],
    ids=["audit-negative-seed", "sweep-csv-into-missing-folder"],
)
def test_a_real_process_prints_one_error_line_and_no_traceback(argv):
    # Two of the cases that once ended in a traceback (a NumPy error, a missing folder); the
    # in-process matrix above covers the rest, and test_cli.py runs one more real process.
    completed = subprocess.run(
        [sys.executable, "-m", "labeldp_core", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith("error: ")
    assert len(completed.stderr.splitlines()) == 1, completed.stderr
    assert completed.stdout == ""
