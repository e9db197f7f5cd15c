"""Consensus retraining: what it reads, which examples it keeps, and that epsilon stays put.

The runs train logistic regression on digits for a few epochs: the properties tested hold for
any model, and these train in well under a second.
"""

from dataclasses import replace

import numpy as np
import pytest

from labeldp_core.engine import consensus
from labeldp_core.engine.consensus import CONSENSUS_DIAGNOSTICS, agreement
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import silent
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.training import TrainOutcome, loop

#: The mechanisms that release labels and train a classifier on every one of them.
OFFERED = {"rr", "rr-prior", "lp-2st", "laplace", "alibi"}
FAST = {"model": "logistic"}
EPOCHS = 3


def _config(mechanism: str = "rr", on: int = 1, **settings: object):
    return make_config(mechanism, "digits", 1.0, 0, EPOCHS, FAST | {"consensus": on} | settings)


@pytest.fixture
def trainings(monkeypatch: pytest.MonkeyPatch) -> list[tuple[np.ndarray, np.ndarray, object]]:
    """Every classifier trained: (images, targets, outcome), in order."""
    calls = []
    original = loop.train_classifier

    def spy(images, targets, *args, **kwargs):
        outcome = original(images, targets, *args, **kwargs)
        calls.append((np.array(images), np.array(targets), outcome))
        return outcome

    monkeypatch.setattr(loop, "train_classifier", spy)
    return calls


def _released(ctx: RunContext) -> np.ndarray:
    """Labels of a release that flips about half of them (a fixed draw, not a mechanism's)."""
    data = ctx.dataset
    draw = np.random.default_rng(7)
    flip = draw.random(data.n_train) < 0.5
    other = draw.integers(0, data.num_classes, data.n_train)
    return np.where(flip, other, data.y_train)


def test_agreement_of_hard_labels_is_equality():
    assert agreement(np.array([0, 1, 2, 2]), np.array([0, 2, 2, 1])).tolist() == [
        True,
        False,
        True,
        False,
    ]


def test_agreement_of_soft_targets_is_being_among_their_largest_coordinates():
    targets = np.array([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.2, 0.7]])
    predicted = np.array([0, 1, 2, 1])
    # The argmax; a tie keeps either of its classes; a uniform row (no information) keeps any.
    assert agreement(predicted, targets).tolist() == [True, True, True, False]


def test_the_retraining_reads_released_labels_and_its_own_predictions_only(trainings):
    ctx = RunContext(_config(), "classification", None, silent)  # type: ignore[arg-type]
    released = _released(ctx)
    final = ctx.train(released)
    (_, targets1, first), (images2, targets2, second) = trainings
    data = ctx.dataset
    predicted = loop.predict_proba(first.model, data.x_train, ctx.train_settings).argmax(axis=1)
    kept = predicted == released
    # The consensus set is exactly where the first model's prediction equals the released label.
    assert 0 < kept.sum() < data.n_train
    np.testing.assert_array_equal(targets1, released)
    np.testing.assert_array_equal(images2, data.x_train[kept])
    np.testing.assert_array_equal(targets2, released[kept])
    assert final is second and ctx.notes["consensus"]["size"] == kept.sum()
    assert ctx.notes["consensus"]["label_accuracy"] == np.mean(released[kept] == data.y_train[kept])

    # Scrambled true labels change the diagnostics only: the same set, targets and model.
    trainings.clear()
    scrambled = RunContext(_config(), "classification", None, silent)  # type: ignore[arg-type]
    permuted = np.random.default_rng(1).permutation(data.y_train)
    scrambled.__dict__["dataset"] = replace(data, y_train=permuted)
    again = scrambled.train(released)
    np.testing.assert_array_equal(trainings[1][1], released[kept])
    assert again.test_curve == final.test_curve
    assert scrambled.notes["consensus"]["size"] == kept.sum()
    diagnostic = "label_accuracy"
    assert scrambled.notes["consensus"][diagnostic] != ctx.notes["consensus"][diagnostic]


def test_an_empty_consensus_set_keeps_the_first_model(monkeypatch: pytest.MonkeyPatch):
    ctx = RunContext(_config(), "classification", None, silent)  # type: ignore[arg-type]
    released = _released(ctx)
    k = ctx.dataset.num_classes
    monkeypatch.setattr(loop, "predict_proba", lambda *a: np.eye(k)[(released + 1) % k])
    first = TrainOutcome(model=None, test_curve=(0.5,))  # type: ignore[arg-type]
    found = consensus.retrain_on_consensus(ctx, released, first)
    assert found.final is first and not found.kept.any()


@pytest.mark.parametrize(
    ("mechanism", "settings"),
    [("rr", {}), ("rr-prior", {}), ("lp-2st", {}), ("laplace", {"post": "soft"}), ("alibi", {})],
)
def test_epsilon_and_release_are_unchanged_and_the_first_model_is_the_plain_run(
    mechanism, settings, cache, trainings
):
    plain = run(_config(mechanism, 0, **settings), cache)
    trainings.clear()
    retrained = run(_config(mechanism, 1, **settings), cache)
    assert retrained.epsilon_spent == plain.epsilon_spent <= retrained.epsilon
    assert retrained.label_accuracy == plain.label_accuracy  # the same labels released
    figures = retrained.details["consensus"]
    # Same release, seed and model: the first training is the plain run's, then one more.
    assert figures["first_test_score"] == plain.test_accuracy
    assert retrained.test_accuracy == trainings[-1][2].final
    assert 0 < figures["size"] <= retrained.n_train
    assert "post-processing" in retrained.details["composition"]
    assert "consensus" not in plain.details
    keys = retrained.diagnostics["keys"]
    assert set(CONSENSUS_DIAGNOSTICS) <= set(keys) and "details.consensus.size" not in keys


def test_the_clean_baseline_is_never_retrained(cache, trainings):
    run(_config("rr", 1), cache)
    # The clean baseline, the model on the released labels, its retraining: three, and the
    # baseline trained on every clean label.
    assert len(trainings) == 3
    assert len(trainings[0][1]) == len(trainings[1][1]) > len(trainings[2][1])


def test_the_mechanisms_that_release_labels_offer_it_and_no_other():
    offering = {m for m, spec in MECHANISMS.items() if "consensus" in spec.settings}
    assert offering == OFFERED
    assert all(MECHANISMS[m].task == "classification" for m in offering)


@pytest.mark.parametrize(
    ("value", "message"),
    [(2, "at most 1"), (-1, "at least 0"), ("yes", "whole number"), (0.5, "whole number")],
)
def test_bad_values_are_refused(value, message):
    with pytest.raises(InvalidInputError, match=message):
        make_config("rr", "digits", 1.0, settings={"consensus": value})


@pytest.mark.parametrize("mechanism", ["laplace-regression", "rr-bins", "pate", "dpsgd"])
def test_mechanisms_without_it_refuse_it(mechanism):
    with pytest.raises(InvalidInputError, match="unknown setting"):
        make_config(mechanism, "digits", 1.0, settings={"consensus": 1})
