import dataclasses
import json

import pytest

from labeldp_core import registry
from labeldp_core.data import dataset_info
from labeldp_core.data.registry import DIGITS_EPOCHS
from labeldp_core.engine.spec import RunConfig, RunResult
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import MECHANISMS, lookup, make_config, run, sweep
from labeldp_core.experiments.runner import dataset_training_defaults
from labeldp_core.registry import FAMILIES, family_of

#: The run JSON's keys every run has (docs/interfaces.md, "The run JSON").
RUN_JSON_KEYS = {
    "mechanism",
    "dataset",
    "seed",
    "epsilon",
    "epsilon_spent",
    "delta",
    "privacy_unit",
    "n_train",
    "n_test",
    "num_classes",
    "elapsed_s",
    "cached",
    "details",
}


def test_make_config_fills_defaults_so_equal_runs_are_equal():
    explicit = make_config("rr", "digits", 1, 0, None, {"model": "cnn", "batch_size": "128"})
    implicit = make_config("rr", "digits", 1.0)
    assert explicit == implicit
    assert implicit.epochs == DIGITS_EPOCHS
    assert dict(implicit.settings)["model"] == "cnn"


def test_the_60k_splits_default_to_their_own_batch_and_rate_unless_a_mechanism_has_its_own():
    for dataset in ("fashion-mnist", "mnist"):  # configs only: nothing is loaded
        settings = dict(make_config("rr", dataset, 1.0).settings)
        assert (settings["batch_size"], settings["learning_rate"]) == (256, 3e-3)
        info = dataset_info(dataset)
        # The dpsgd baseline trains like the label-DP mechanisms' baselines.
        assert dataset_training_defaults(MECHANISMS["dpsgd"], info) == dict(info.training_defaults)
        # PATE has its own batch for its small shards and DPPL its own encoder settings, so
        # both keep their own rate too.
        for own in ("pate", "dppl-mean"):
            assert dataset_training_defaults(MECHANISMS[own], info) == {}
    settings = dict(make_config("rr", "mnist-5k", 1.0).settings)
    assert (settings["batch_size"], settings["learning_rate"]) == (128, 2e-3)
    given = make_config("rr", "fashion-mnist", 1.0, settings={"batch_size": 64})
    assert (given.setting("batch_size"), given.setting("learning_rate")) == (64, 3e-3)
    spelled_out = {"batch_size": 256, "learning_rate": 3e-3}
    assert make_config("rr", "mnist", 1.0, settings=spelled_out) == make_config("rr", "mnist", 1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mechanism": "nope"}, "unknown mechanism"),
        ({"dataset": "nope"}, "unknown dataset"),
        ({"epsilon": 0}, "greater than 0"),
        ({"seed": -1}, "seed"),
        ({"epochs": 0}, "epochs"),
        ({"settings": {"colour": "red"}}, "unknown setting"),
        ({"settings": {"model": "resnet"}}, "choose one of"),
        ({"settings": {"batch_size": "many"}}, "must be a whole number"),
        ({"settings": {"learning_rate": "nan"}}, "finite"),
    ],
)
def test_bad_configs_are_rejected_with_the_fix(kwargs, match):
    arguments = {"mechanism": "rr", "dataset": "digits", "epsilon": 1.0} | kwargs
    with pytest.raises(InvalidInputError, match=match):
        make_config(**arguments)


def test_rr_run_reports_the_design_json_and_is_cached(cache):
    config = make_config("rr", "digits", 2.0, epochs=3)
    assert lookup(config, cache) is None
    result = run(config, cache)
    data = result.to_dict()
    assert set(data) >= RUN_JSON_KEYS
    assert "test_accuracy" in data and "test_mse" not in data
    json.dumps(data, allow_nan=False)
    assert result.privacy_unit == "label" and result.delta == 0.0
    assert result.epsilon_spent == result.epsilon == 2.0
    assert result.flip_rate + result.label_accuracy == pytest.approx(1.0)
    assert result.cached is False
    again = run(config, cache)
    assert again.cached is True
    assert again.test_accuracy == result.test_accuracy
    assert lookup(config, cache) == RunResult.from_dict(data, cached=True)


def test_sweep_resumes_from_finished_points(cache, monkeypatch):
    calls = []
    spec = MECHANISMS["rr"]
    original = spec.runner

    def counting(config, ctx):
        calls.append(config.epsilon)
        return original(config, ctx)

    family = family_of("rr")
    entries = tuple(
        dataclasses.replace(m, spec=dataclasses.replace(spec, runner=counting))
        if m.id == "rr"
        else m
        for m in family.mechanisms
    )
    swapped = dataclasses.replace(family, mechanisms=entries)
    monkeypatch.setattr(registry, "FAMILIES", [swapped if f is family else f for f in FAMILIES])
    sweep("rr", "digits", [1.0], epochs=2, cache=cache)
    results = sweep("rr", "digits", [1.0, 4.0], epochs=2, cache=cache)
    assert calls == [1.0, 4.0]
    assert [r.cached for r in results] == [True, False]


def test_a_label_dp_run_reports_the_label_inference_attack_on_its_model(cache):
    result = run(make_config("rr", "digits", 8.0, epochs=4), cache)
    attack = result.details["attack"]
    # The attack figures are the model's accuracy on training and test examples.
    assert attack["test_accuracy"] == pytest.approx(result.test_accuracy, abs=1e-6)
    # Trained on its (almost all kept) labels, the model does at least as well on them.
    assert attack["train_accuracy"] >= attack["test_accuracy"] - 0.05
    # The clean model memorises its training labels at least as well as it generalises.
    assert attack["clean_model_train_accuracy"] >= result.baseline_test_accuracy - 0.02


def test_a_config_from_make_config_is_not_validated_again_by_lookup_and_run(cache, monkeypatch):
    from labeldp_core.experiments import runner

    config = make_config("rr", "digits", 1.0, 0, 1)
    checks = []
    real = runner.make_config
    monkeypatch.setattr(runner, "make_config", lambda *a, **k: checks.append(a) or real(*a, **k))
    assert lookup(config, cache) is None
    run(config, cache)
    assert checks == []
    by_hand = RunConfig("rr", "digits", 1.0, epochs=1)  # defaults missing: filled on its use
    assert lookup(by_hand, cache) == lookup(config, cache)
    assert len(checks) == 1
    with pytest.raises(InvalidInputError, match="unknown setting"):
        lookup(RunConfig("rr", "digits", 1.0, settings=(("x", [1]),)), cache)


def test_the_app_road_takes_made_configs_only_and_checks_them_no_more(cache, monkeypatch):
    from labeldp_core.experiments import runner

    config = make_config("rr", "digits", 1.0, 0, 1)
    checks = []
    real = runner.make_config
    monkeypatch.setattr(runner, "make_config", lambda *a, **k: checks.append(a) or real(*a, **k))
    assert runner.stored_result(config, cache, registry.registration("rr")) is None
    computed = runner.computed_result(config, cache)
    found = runner.stored_result(config, cache, registry.registration("rr"))
    assert found.cached and not computed.cached
    assert found.flip_rate == computed.flip_rate and found.epsilon_spent == 1.0
    assert checks == []
    for by_hand in (
        RunConfig("rr", "digits", 1.0, epochs=1),  # defaults missing
        RunConfig("rr", "digits", -1.0, epochs=1),  # a bad epsilon never made
        RunConfig("rr", "digits", 1.0, settings=(("x", [1]),)),  # unhashable
    ):
        for road in (
            lambda config: runner.stored_result(config, cache, registry.registration("rr")),
            lambda config: runner.computed_result(config, cache),
        ):
            with pytest.raises(InvalidInputError, match="build it with make_config"):
                road(by_hand)


def test_the_app_road_refuses_another_mechanisms_registration(cache):
    """The road finds what the registry says of a point once and hands it down: another
    mechanism's would key the result under another family's code, so it is refused."""
    from labeldp_core.experiments import runner

    config = make_config("rr", "digits", 1.0, 0, 1)
    other = registry.registration("laplace")
    for road in (runner.stored_result, runner.fresh_result):
        with pytest.raises(InvalidInputError, match="is not 'rr'"):
            road(config, cache, other)


def test_the_app_road_takes_a_copy_of_a_made_config_after_the_original_is_gone(cache):
    """A cached page function hands back copies (pickled): the dppl page's curves broke on them."""
    import gc
    import pickle

    from labeldp_core.experiments import runner

    copy = pickle.loads(pickle.dumps(make_config("rr", "digits", 1.0, 0, 1)))
    gc.collect()
    assert runner.stored_result(copy, cache, registry.registration("rr")) is None
    assert runner.computed_result(copy, cache).epsilon_spent == 1.0


def test_a_pickled_copy_of_a_made_config_is_still_made_and_not_checked_again(cache, monkeypatch):
    """The mark make_config puts on a config survives pickling: the road takes the copy as it
    is, without making it again (a page's cache hands back copies on every run of a page)."""
    import pickle

    from labeldp_core.experiments import runner

    copy = pickle.loads(pickle.dumps(make_config("rr", "digits", 1.0, 0, 1)))
    checks = []
    real = runner.make_config
    monkeypatch.setattr(runner, "make_config", lambda *a, **k: checks.append(a) or real(*a, **k))
    assert runner.stored_result(copy, cache, registry.registration("rr")) is None
    assert runner.computed_result(copy, cache).epsilon_spent == 1.0
    assert lookup(copy, cache).cached
    assert checks == []
