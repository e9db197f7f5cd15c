"""The bad-input table of the engine (experiments, data, audit, cluster): calls and bad values."""

import pytest

from labeldp_core.cluster import check_scheduler, check_workers
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.experiments import RunConfig, lookup, make_config, run, sweep, sweep_configs
from labeldp_core.model_audit import audit_model
from labeldp_core.release_audit.engine import check_trials, run_audit
from labeldp_core.services.release_audits import audit_cases
from tests.contract.bad_values import (
    NAN,
    RNG,
    Bad,
    Row,
    bad_calls,
    check_bad_call,
    check_valid_call,
    counts,
    epsilons,
    probabilities,
    valid_calls,
)

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

BAD_SWEEPS = [
    Bad("epsilons", [], "a sweep's epsilons must not be empty; give at least one", "empty"),
    Bad("epsilons", [1.0, -1.0], "greater than 0", "one-negative"),
    Bad("epsilons", [NAN], "finite", "nan"),
    Bad("epsilons", 1.0, "a sweep's epsilons must be a list", "scalar"),
    Bad("seeds", [], "a sweep's seeds must not be empty; give at least one", "empty-seeds"),
    Bad("seeds", [0, -1], "seed must be", "negative-seed"),
    Bad("seeds", 0, "a sweep's seeds must be a list", "scalar-seed"),
    Bad("mechanism", "magic", "unknown mechanism", "unknown-mechanism"),
    Bad("dataset", "cifar", "unknown dataset", "unknown-dataset"),
]

ENGINE_ROWS: list[Row] = [
    # The engine.
    Row(
        make_config,
        {"mechanism": "rr", "dataset": "digits", "epsilon": 1.0},
        bad=[
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
    ),
    Row(
        run,
        {"config": RunConfig("rr", "digits", 1.0, epochs=1)},
        bad=BAD_CONFIGS,
        try_valid=False,
    ),
    Row(
        lookup,
        {"config": RunConfig("rr", "digits", 1.0, epochs=1)},
        bad=BAD_CONFIGS,
    ),
    Row(
        sweep,
        {"mechanism": "rr", "dataset": "digits", "epsilons": [1.0], "seeds": [0], "epochs": 1},
        bad=BAD_SWEEPS,
        try_valid=False,
    ),
    Row(
        sweep_configs,
        {"mechanism": "rr", "dataset": "digits", "epsilons": [1.0], "seeds": [0], "epochs": 1},
        bad=BAD_SWEEPS,
    ),
    Row(
        dataset_info,
        {"name": "digits"},
        bad=[Bad("name", "cifar", "unknown dataset 'cifar'; choose one of", "unknown")],
    ),
    Row(
        load_dataset,
        {"name": "digits"},
        bad=[Bad("name", "cifar", "unknown dataset 'cifar'; choose one of", "unknown")],
    ),
    Row(
        audit_cases,
        {"mechanism": "rr", "epsilon": 1.0},
        bad=[
            *epsilons(),
            Bad("mechanism", "magic", "no audit for mechanism 'magic'", "unknown"),
        ],
    ),
    Row(
        run_audit,
        {"case": audit_cases("rr", 1.0)[0], "trials": 200, "rng": RNG, "alpha": 0.05},
        bad=[
            *counts("trials"),
            *probabilities("alpha"),
            Bad("trials", 10**13, "trials must be at most", "huge"),
        ],
    ),
    Row(
        check_trials,
        {"trials": 200},
        bad=[*counts("trials"), Bad("trials", 10**13, "at most", "huge")],
    ),
    # The cluster's options (--workers, --scheduler).
    Row(
        check_workers,
        {"value": 2},
        bad=[
            Bad("value", value, "--workers must be a whole number of worker processes", label)
            for value, label in (
                (0, "zero"),
                (-1, "negative"),
                ("abc", "text"),
                (1.5, "fraction"),
                (None, "none"),
                (10**6, "huge"),
            )
        ],
    ),
    # The canary audit of a trained model: refused before anything trains.
    Row(
        audit_model,
        {"mechanism": "dpsgd", "dataset": "digits", "epsilon": 1.0, "epochs": 1},
        bad=[
            *epsilons(),
            Bad("epsilon", 60.0, "epsilon must be at most 50, got 60", "control-above-max"),
            Bad("canaries", 99, "canaries must lie in 100..718", "too-few"),
            Bad("canaries", 719, "canaries must lie in 100..718", "above-half"),
            Bad("canaries", 2.5, "canaries must be a whole number", "fraction"),
            Bad("canaries", True, "canaries must be a whole number", "bool"),
            Bad("canaries", "many", "canaries must be a whole number", "str"),
            Bad("mechanism", "magic", "unknown mechanism", "unknown"),
            Bad("mechanism", "laplace-regression", "classifier", "regression"),
            Bad("mechanism", "softmax-laplace", "not its training labels", "output-dp"),
            Bad(
                "settings", {"imbalance": 10.0}, "audit it on the whole training split", "subsample"
            ),
            Bad("dataset", "cifar", "unknown dataset", "unknown"),
            Bad("seed", -1, "seed must be", "negative"),
        ],
        try_valid=False,
    ),
    Row(
        check_scheduler,
        {"address": "tcp://127.0.0.1:8786"},
        bad=[
            Bad("address", value, "must be a Dask scheduler's address like tcp://HOST:8786", label)
            for value, label in (
                ("", "empty"),
                ("http://host:8786", "http"),
                ("tcp://host", "no-port"),
                ("tcp://host:0", "port-zero"),
                ("tcp://host:99999", "port-huge"),
                ("tcp://a b:1", "space"),
                (None, "none"),
            )
        ],
    ),
]


@pytest.mark.parametrize("row", valid_calls(ENGINE_ROWS))
def test_valid_arguments_are_accepted(row):
    check_valid_call(row)


@pytest.mark.parametrize(("row", "bad"), bad_calls(ENGINE_ROWS))
def test_bad_input_raises_a_clear_invalid_input_error(row, bad):
    check_bad_call(row, bad)
