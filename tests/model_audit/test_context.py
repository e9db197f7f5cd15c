import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.model_audit import training_run
from labeldp_core.model_audit.canaries import draw_canaries
from labeldp_core.model_audit.context import CanaryContext


def _context(cache, epochs: int = 1) -> CanaryContext:
    config = make_config("rr", "digits", 1.0, epochs=epochs, settings={"model": "logistic"})
    data = load_dataset("digits")
    canaries = draw_canaries(data.y_train, data.num_classes, 120, 0)
    return CanaryContext(config, "classification", cache, lambda *_: None, canaries=canaries)


def test_the_context_trains_on_the_planted_labels_and_nothing_else_changes(cache):
    ctx = _context(cache)
    clean, planted = load_dataset("digits"), ctx.dataset
    index = ctx.canaries.index
    assert np.array_equal(planted.y_train[index], ctx.canaries.planted)
    others = np.setdiff1d(np.arange(clean.n_train), index)
    assert np.array_equal(planted.y_train[others], clean.y_train[others])
    # The test set, the images and the shared copy of the dataset keep their clean labels.
    assert planted.x_test is clean.x_test and planted.y_test is clean.y_test
    assert planted.x_train is clean.x_train
    assert not np.array_equal(clean.y_train[index], ctx.canaries.planted)


def test_a_model_trained_on_every_example_is_read_on_the_canaries(cache):
    ctx = _context(cache)
    assert ctx.canary_probabilities() is None
    ctx.train(ctx.dataset.y_train)
    probabilities = ctx.canary_probabilities()
    assert probabilities.shape == (120, 10)
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    assert "attack" in ctx.notes  # the engine's own note is still taken


def test_a_canary_training_leaves_nothing_an_ordinary_run_reads(cache):
    config = make_config("rr", "digits", 1.0, epochs=1, settings={"model": "logistic"})
    data = load_dataset("digits")
    canaries = draw_canaries(data.y_train, data.num_classes, 120, 0)
    draw = {"dataset": "digits", "count": 120, "seed": 0}
    found = training_run.canary_training(config, canaries, "mechanism", cache, draw)
    assert np.asarray(found["scores"]).shape == (120, 10)
    assert len(cache) == 1  # the scores only: votes, priors, baselines went to a throwaway cache
    assert run(config, cache).cached is False


def test_a_mechanism_that_notes_no_model_is_refused_after_its_run(cache, monkeypatch):
    config = make_config("rr", "digits", 1.0, epochs=1, settings={"model": "logistic"})
    monkeypatch.setattr(CanaryContext, "note_attack_model", lambda self, model: None)
    data = load_dataset("digits")
    canaries = draw_canaries(data.y_train, data.num_classes, 120, 0)
    with pytest.raises(InvalidInputError, match="no released classifier"):
        training_run.canary_training(config, canaries, "mechanism", cache, {"seed": 0})


def test_dpsgd_notes_its_released_model_so_its_canaries_are_read(cache):
    config = make_config("dpsgd", "digits", 1.0, epochs=1, settings={"model": "logistic"})
    data = load_dataset("digits")
    canaries = draw_canaries(data.y_train, data.num_classes, 120, 0)
    found = training_run.canary_training(config, canaries, "mechanism", cache, {"seed": 0})
    assert len(found["scores"]) == 120 and found["delta"] == config.setting("delta")
