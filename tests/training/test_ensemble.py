"""PATE's teachers trained together: each member's votes and weights exactly as alone."""

import numpy as np
import pytest
import torch

from labeldp_core.data import load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.training import TrainSettings, batched, ensemble, ensemble_members

#: 11 teachers on digits' 1,437 training images: shards of 108 and 109 (two groups together).
TEACHERS = 11


def _votes_and_state(monkeypatch, together: bool, settings: TrainSettings):
    data = load_dataset("digits")
    split = teacher_split(data.n_train, TEACHERS, seed=0)
    trained = []
    original = ensemble_members._train

    def keep(jobs, indices, on_trained):
        models = original(jobs, indices, on_trained)
        trained.extend(zip(indices, (m for m, _ in models), strict=True))
        return models

    monkeypatch.setattr(ensemble_members, "_train", keep)
    if not together:  # every member by the single loop, one after another, as before
        monkeypatch.setattr(batched, "products_agree", lambda members: False)
    done = []
    torch.manual_seed(123)
    votes = ensemble.ensemble_votes(
        data.x_train,
        data.y_train,
        split.shards,
        data.x_test,
        10,
        settings,
        7,
        lambda finished, total: done.append((finished, total)),
    )
    weights = [dict(sorted(model.state_dict().items())) for _, model in sorted(trained)]
    return votes, weights, torch.get_rng_state(), done


@pytest.mark.parametrize("model", ["mlp", "logistic"])
def test_members_trained_together_vote_and_weigh_as_each_alone(monkeypatch, model):
    settings = TrainSettings(model=model, epochs=3, batch_size=32, learning_rate=0.002)
    alone = _votes_and_state(monkeypatch, False, settings)
    monkeypatch.undo()
    together = _votes_and_state(monkeypatch, True, settings)
    assert {len(s) for s in teacher_split(1437, TEACHERS, seed=0).shards} == {108, 109}
    assert np.array_equal(alone[0], together[0]) and alone[0].dtype == together[0].dtype
    for one, other in zip(alone[1], together[1], strict=True):
        assert all(torch.equal(one[k], other[k]) for k in one)
    # torch's generator is left as the last member's own run leaves it.
    assert torch.equal(alone[2], together[2])
    assert together[3][-1] == (TEACHERS, TEACHERS) and len(together[3]) < len(alone[3])
    assert len(alone[3]) == TEACHERS
