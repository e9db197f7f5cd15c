"""The bad-input table of ``labeldp_core.accounting``: valid calls beside their bad values."""

import numpy as np
import pytest

from labeldp_core import accounting
from tests.contract.bad_values import (
    INF,
    NAN,
    VOTES,
    Bad,
    Row,
    bad_calls,
    check_bad_call,
    check_valid_call,
    counts,
    epsilons,
    positives,
    probabilities,
    valid_calls,
    vote_table,
)

ACCOUNTING_ROWS: list[Row] = [
    Row(
        accounting.pate_epsilon,
        {"vote_counts": VOTES, "delta": 1e-5, "aggregator": "gnmax", "noise": 2.0},
        bad=[
            *vote_table(),
            *probabilities("delta"),
            *positives("noise"),
            Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
            Bad("threshold", 5.0, "apply to confident-gnmax only", "threshold-for-gnmax"),
            Bad("aggregator", "confident-gnmax", "needs threshold", "confident-without-threshold"),
        ],
    ),
    # labeldp_core.accounting.
    Row(
        accounting.sequential_composition,
        {"epsilons": [0.5, 0.25]},
        bad=[
            Bad("epsilons", [], "epsilons must not be empty", "empty"),
            Bad("epsilons", [0.5, -1.0], "finite and >= 0", "negative"),
            Bad("epsilons", [NAN], "finite and >= 0", "nan"),
            Bad("epsilons", [INF], "finite and >= 0", "inf"),
            Bad("epsilons", ["a"], "every epsilon must be a number", "strings"),
            Bad("epsilons", 1.0, "epsilons must be a list", "scalar"),
        ],
    ),
    Row(
        accounting.parallel_composition,
        {"epsilons": [0.5, 0.25]},
        bad=[
            Bad("epsilons", [], "epsilons must not be empty", "empty"),
            Bad("epsilons", [-1.0], "finite and >= 0", "negative"),
            Bad("epsilons", None, "epsilons must be a list", "none"),
        ],
    ),
    Row(
        accounting.split_budget,
        {"total": 1.0, "prior_epsilon": 0.2},
        bad=[
            *epsilons("total"),
            Bad("prior_epsilon", 1.0, "leaves no budget for the release", "all-of-it"),
            Bad("prior_epsilon", 5.0, "leaves no budget for the release", "more-than-all"),
            Bad("prior_epsilon", -0.1, "prior_epsilon must be a finite number >= 0", "negative"),
            Bad("prior_epsilon", NAN, "prior_epsilon must be a finite number >= 0", "nan"),
            Bad("prior_epsilon", "a", "prior_epsilon must be a finite number >= 0", "str"),
        ],
    ),
    Row(
        accounting.split_budget_by_share,
        {"total": 1.0, "prior_share": 0.2},
        bad=[
            *epsilons("total"),
            *[b for b in probabilities("prior_share") if b.label != "zero"],
        ],
    ),
    Row(
        accounting.pate_rdp,
        {"vote_counts": VOTES, "aggregator": "gnmax", "noise": 2.0},
        bad=[
            *vote_table(),
            *positives("noise"),
            Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
            Bad("answered", [True, False], "apply to confident-gnmax only", "answered-for-gnmax"),
        ],
    ),
    Row(
        accounting.epsilon_as_queries_grow,
        {
            "vote_counts": VOTES,
            "delta": 1e-5,
            "checkpoints": [1, 2],
            "aggregator": "gnmax",
            "noise": 2.0,
        },
        bad=[
            *probabilities("delta"),
            Bad("checkpoints", [0], "checkpoints must be query counts in 1..2", "zero"),
            Bad("checkpoints", [3], "checkpoints must be query counts in 1..2", "too-many"),
            Bad("checkpoints", [], "checkpoints must be query counts in 1..2", "empty"),
            Bad("checkpoints", [1.5], "checkpoints must be query counts in 1..2", "fraction"),
            Bad("checkpoints", ["a"], "checkpoints must be query counts in 1..2", "strings"),
        ],
    ),
    Row(
        accounting.data_independent_epsilon,
        {"queries": 10, "delta": 1e-5, "aggregator": "gnmax", "noise": 20.0},
        bad=[
            *counts("queries"),
            *probabilities("delta"),
            *positives("noise"),
            Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
            Bad("aggregator", "confident-gnmax", "needs threshold_sigma", "confident-no-sigma"),
        ],
    ),
    Row(
        accounting.calibrate_noise,
        {"epsilon": 1.0, "queries": 10, "delta": 1e-5, "aggregator": "gnmax"},
        bad=[
            *epsilons(),
            *counts("queries"),
            *probabilities("delta"),
            *positives("threshold_noise_ratio"),
            Bad("aggregator", "magic", "aggregator must be one of", "unknown-aggregator"),
        ],
    ),
    Row(
        accounting.epsilon_from_rdp,
        {"rdp": np.full(accounting.ORDERS.shape, 0.01), "delta": 1e-5},
        bad=[
            *probabilities("delta"),
            Bad(
                "rdp",
                np.full(accounting.ORDERS.shape, NAN),
                "rdp must not be NaN or negative",
                "nan",
            ),
            Bad(
                "rdp",
                np.full(accounting.ORDERS.shape, -1.0),
                "rdp must not be NaN or negative",
                "negative",
            ),
            Bad("rdp", [0.5, 0.5], "one value per order", "too-short"),
            Bad(
                "orders",
                np.linspace(0.5, 3, accounting.ORDERS.size),
                "orders must be",
                "order-below-one",
            ),
        ],
    ),
    Row(
        accounting.gaussian_sigma,
        {"sensitivity": 1.0, "rho": 0.5},
        bad=[*positives("sensitivity"), *positives("rho")],
    ),
    Row(
        accounting.gaussian_zcdp,
        {"sensitivity": 1.0, "sigma": 1.0},
        bad=[*positives("sensitivity"), *positives("sigma")],
    ),
    Row(
        accounting.group_zcdp,
        {"rho": 0.5, "group_size": 2},
        bad=[*positives("rho"), *counts("group_size")],
    ),
    Row(
        accounting.zcdp_of_pure_dp,
        {"epsilon": 1.0},
        bad=positives("epsilon"),
    ),
    Row(
        accounting.zcdp_to_approx_dp,
        {"rho": 0.5, "delta": 1e-5},
        bad=[*positives("rho"), *probabilities("delta")],
    ),
    Row(
        accounting.dpsgd_epsilon,
        {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 100, "delta": 1e-5},
        bad=[
            *[
                Bad("noise_multiplier", b.value, "noise_multiplier", b.label)
                for b in positives("x")
            ],
            *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, -0.1, 1.5, NAN)],
            *[Bad("steps", b.value, "steps", b.label) for b in counts("x")],
            *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
            Bad("accountant", "magic", "accountant", "unknown-accountant"),
        ],
    ),
    Row(
        accounting.dpsgd_epsilon_curve,
        {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": [10, 100], "delta": 1e-5},
        bad=[
            *[
                Bad("noise_multiplier", b.value, "noise_multiplier", b.label)
                for b in positives("x")
            ],
            *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, 1.5, NAN)],
            *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
            Bad("steps", [10, 0], "steps", "zero-steps"),
        ],
    ),
    Row(
        accounting.sampling_schedule,
        {"n_examples": 1000, "batch_size": 100, "epochs": 2},
        bad=[
            Bad("batch_size", 2000, "larger than the 1000 training examples", "batch-too-large"),
            Bad("batch_size", 0, "at least 1", "zero-batch"),
            Bad("epochs", 1.5, "whole number", "fractional-epochs"),
            Bad("n_examples", -3, "at least 1", "negative-examples"),
        ],
    ),
    Row(
        accounting.calibrate_noise_multiplier,
        {"target_epsilon": 1.0, "delta": 1e-5, "sample_rate": 0.01, "steps": 100},
        bad=[
            *epsilons("target_epsilon"),
            *[Bad("delta", b.value, "delta", b.label) for b in probabilities("x")],
            *[Bad("sample_rate", v, "sample_rate", f"rate-{v}") for v in (0.0, 1.5, NAN)],
            Bad("steps", 0, "steps", "zero-steps"),
            Bad("accountant", "magic", "accountant", "unknown-accountant"),
        ],
    ),
]


@pytest.mark.parametrize("row", valid_calls(ACCOUNTING_ROWS))
def test_valid_arguments_are_accepted(row):
    check_valid_call(row)


@pytest.mark.parametrize(("row", "bad"), bad_calls(ACCOUNTING_ROWS))
def test_bad_input_raises_a_clear_invalid_input_error(row, bad):
    check_bad_call(row, bad)
