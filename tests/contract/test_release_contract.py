"""What every mechanism's release actually received matches the epsilon its run reports.

A spy at each release boundary records the arguments the experiment handed to the release
function (the noise plan that draws the noise, or the privacy parameters, and how many labels);
the epsilon those arguments imply, recomputed here from the plan's drawing parameters, must be
the run's ``epsilon_spent``. A bug in the layer above the release (a budget doubled on its way
down, a plan for the wrong sensitivity, a forgotten noise mode) then turns this test red, even
when the run's report is consistent with itself. The calls spied on are each mechanism's declared
``releases``; what they imply is written in its family's tests folder (``release_contract.py``,
see ``release_spies``). Every registered mechanism must have both: a new one cannot be registered
without being covered here.
"""

import importlib

import numpy as np
import pytest
from release_spies import Call, N, merged_contracts, plans_received, spy_on_releases

from labeldp_core.data import load_dataset
from labeldp_core.engine import context as context_module
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.noise.noise_plans import SECURE_SOURCE
from labeldp_core.registry import mechanism_entries
from labeldp_core.training import loop as training_loop

IMPLIED = merged_contracts("IMPLIED")
SMALL = merged_contracts("SMALL")
TARGETS = merged_contracts("TARGETS")


def test_every_registered_mechanism_has_its_release_spied_on():
    assert set(IMPLIED) == set(MECHANISMS)
    for mechanism in mechanism_entries():
        assert mechanism.releases, f"{mechanism.id} declares no release call"
        for step in mechanism.releases:
            module = importlib.import_module(step.module)
            assert callable(getattr(module, step.function, None)), step


def contract_cases() -> list[tuple[str, dict, str]]:
    """Every registered mechanism's runs under the contract: each setting variant its release
    contract names (``VARIANTS``; else its defaults) in each noise mode it takes."""
    variants = merged_contracts("VARIANTS")
    cases = []
    for mechanism in MECHANISMS:
        modes = ["float", "secure"] if "noise" in MECHANISMS[mechanism].settings else ["float"]
        for extra in variants.get(mechanism, [{}]):
            cases += [(mechanism, extra, mode) for mode in modes]
    return cases


@pytest.mark.parametrize(
    ("mechanism", "extra", "mode"), contract_cases(), ids=lambda v: str(v).replace(" ", "")
)
@pytest.mark.parametrize("epsilon", [0.7, 3.7])
def test_the_release_received_what_the_run_reports(
    fast_runs, monkeypatch, mechanism, extra, mode, epsilon
):
    calls: list[Call] = []
    spy_on_releases(monkeypatch, mechanism, calls)
    settings = {"model": "logistic"} | SMALL.get(mechanism, {}) | extra
    if mode == "secure":
        settings["noise"] = "secure"
    result = run(make_config(mechanism, "digits", epsilon, epochs=1, settings=settings), fast_runs)
    assert calls, f"no release function of {mechanism} was called"
    assert result.details["noise_mode"] == mode
    # Secure exact samplers where the run says so; floating-point samplers on a generator
    # seeded from os.urandom where it says that (Laplace on outputs, DP-SGD, DP prototypes).
    exact = result.details["noise_source"] == SECURE_SOURCE
    for call in calls:  # the noise mode asked for reached every release that takes one
        assert call.arguments.get("noise", mode) == mode, call.name
        assert all(plan.secure == exact for plan in plans_received(call)), call.name
    assert result.epsilon_spent == IMPLIED[mechanism](calls, result)
    assert result.epsilon_spent <= epsilon
    _check_reported_figures(mechanism, calls, result)


def _check_reported_figures(mechanism: str, calls: list[Call], result) -> None:
    """The run reports the trained model's score, its training-set size and, for a release of
    labels, the flip rate of exactly what was released (mutants that dropped them survived)."""
    score = result.test_accuracy if result.test_mse is None else result.test_mse
    assert score is not None and np.isfinite(score), result
    assert result.test_mse is not None or 0 <= result.test_accuracy <= 1
    assert isinstance(result.n_train, int) and 0 < result.n_train <= N
    if result.flip_rate is not None:  # a release of labels: its two shares of the truth add up
        assert 0 <= result.flip_rate <= 1
        assert result.flip_rate + result.label_accuracy == pytest.approx(1.0)
    if mechanism in ("rr", "rr-prior"):
        released = np.asarray(calls[-1].returned)  # rr-prior: after its histogram release
        flips = float(np.mean(released != load_dataset("digits").y_train))
        assert result.flip_rate == pytest.approx(flips)
        assert result.label_accuracy == pytest.approx(1 - flips)


@pytest.mark.parametrize("mechanism", list(TARGETS))
def test_models_train_on_what_was_released_not_on_the_true_labels(
    fast_runs, monkeypatch, mechanism
):
    # The model is post-processing only if it sees nothing but the release: training on the
    # true labels (or on a mix) would release them through the model. The clean baseline, a
    # diagnostic, is the one training allowed to see them.
    calls: list[Call] = []
    spy_on_releases(monkeypatch, mechanism, calls)
    trained = []
    fake = context_module.RunContext.train
    student = training_loop.train_classifier

    def recording(ctx, targets, **kwargs):
        if not kwargs.get("message", "").startswith("clean baseline"):
            trained.append(np.asarray(targets))
        return fake(ctx, targets, **kwargs)

    def recording_student(images, labels, *args, **kwargs):
        trained.append(np.asarray(labels))
        return student(images, labels, *args, **kwargs)

    monkeypatch.setattr(context_module.RunContext, "train", recording)
    monkeypatch.setattr(training_loop, "train_classifier", recording_student)
    settings = {"model": "logistic"} | SMALL.get(mechanism, {})
    result = run(
        make_config(mechanism, "digits", 0.6, seed=4, epochs=1, settings=settings), fast_runs
    )
    pairs = TARGETS[mechanism](calls, result, trained)  # strict: one training per release
    assert pairs
    for got, want in pairs:
        np.testing.assert_allclose(got, want)
