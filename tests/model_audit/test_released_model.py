"""PATE's released model is its student: the canary audit reads the student's softmax.

The canaries sit in the teachers' private shards and change their votes; the student learns
from the answers on the public queries, never from a canary row, and the attack reads it on the
canary images. Small settings: 5 teachers, 40 queries, logistic models, one epoch asked.
"""

import numpy as np

from labeldp_core.data import load_dataset
from labeldp_core.experiments import make_config, mechanism_spec, run
from labeldp_core.families.pate import experiment as pate_experiment
from labeldp_core.model_audit import training_run
from labeldp_core.model_audit.canaries import draw_canaries
from labeldp_core.model_audit.context import CanaryContext
from labeldp_core.model_audit.protected import protected_rows

PATE = {"teachers": 5, "queries": 40, "model": "logistic", "teacher_model": "logistic"}


def _setup():
    config = make_config("pate", "digits", 2.0, 0, 1, PATE)
    data = load_dataset("digits")
    rows = protected_rows(config, data)
    return config, data, draw_canaries(data.y_train, data.num_classes, 120, 0, rows)


def test_the_students_softmax_on_the_canaries_is_read(cache, monkeypatch):
    config, data, canaries = _setup()
    seen = {}
    original = pate_experiment.ensemble_votes

    def spy(x_train, y_train, shards, queries, *args):
        seen["labels"], seen["shards"] = y_train, shards
        return original(x_train, y_train, shards, queries, *args)

    monkeypatch.setattr(pate_experiment, "ensemble_votes", spy)
    ctx = CanaryContext(config, "classification", cache, lambda *_: None, canaries=canaries)
    mechanism_spec("pate").runner(config, ctx)
    probabilities = ctx.canary_probabilities()
    assert probabilities.shape == (120, data.num_classes)
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    # No model trained on every training example was noted: these are the student's outputs.
    assert "attack" not in ctx.notes
    # The teachers learnt the planted labels, and every canary is in some teacher's shard.
    assert np.array_equal(seen["labels"][canaries.index], canaries.planted)
    assert np.all(np.isin(canaries.index, np.concatenate(seen["shards"])))


def test_a_pate_canary_training_stores_the_students_scores(cache):
    config, _, canaries = _setup()
    draw = {"dataset": "digits", "count": 120, "seed": 0}
    found = training_run.canary_training(config, canaries, "mechanism", cache, draw)
    assert np.allclose(np.sum(found["scores"], axis=1), 1.0, atol=1e-5)
    assert len(found["scores"]) == 120
    assert found["delta"] == config.setting("delta")


def test_an_ordinary_pate_run_keeps_no_canary_note(cache):
    result = run(make_config("pate", "digits", 2.0, 0, 1, PATE), cache)
    assert "attack" not in result.details
