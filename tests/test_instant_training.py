"""The tests' stand-in training (``instant_training``, tests/conftest.py) keeps every training tiny.

Pages opened under it retrain at every changed control; PATE's teachers, trained together as one
batched model, escaped it and took their full recipe (50 MLPs, 20 epochs) on every opening.
"""

import numpy as np
import pytest

from labeldp_core.data import load_dataset
from labeldp_core.training import TrainSettings, batched
from labeldp_core.training.ensemble import ensemble_votes


@pytest.mark.usefixtures("instant_training")
def test_the_teachers_trained_together_take_one_epoch_on_64_examples_each(monkeypatch):
    steps = []
    original = batched.train_step

    def counted(optimiser, models, masks, inputs, targets):
        steps.append(tuple(targets.shape))
        return original(optimiser, models, masks, inputs, targets)

    monkeypatch.setattr(batched, "train_step", counted)
    data = load_dataset("digits")
    shards = np.array_split(np.arange(800), 4)  # 200 examples a teacher
    settings = TrainSettings(model="mlp", epochs=5, batch_size=32, learning_rate=2e-3)
    votes = ensemble_votes(
        data.x_train, data.y_train, shards, data.x_test[:10], 10, settings, seed=0
    )
    assert votes.shape == (4, 10)
    assert steps == [(4, 32), (4, 32)]  # the full recipe: 5 epochs of 7 steps
