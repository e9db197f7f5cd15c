"""Self-training: confident pseudo-labels from the model itself, never a label of the pool."""

import numpy as np
import pytest
import torch
from torch import nn

from labeldp_core.training import TrainOutcome, TrainSettings
from labeldp_core.training.self_training import self_train

SETTINGS = TrainSettings(model="logistic", epochs=1, batch_size=8)


class _Fixed(nn.Module):
    """Logits that say class 1 with probability ``p`` for images whose mean is positive, else 0."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.logit = float(np.log(p / (1 - p)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positive = (x.flatten(1).mean(dim=1) > 0).float()
        return torch.stack([(1 - positive) * self.logit, positive * self.logit], dim=1)


def _recording_train(p: float, calls: list):
    def train(images, labels, progress):
        calls.append((images.copy(), labels.copy()))
        if progress is not None:
            progress(1, 1)
        return TrainOutcome(_Fixed(p).eval(), (float(len(calls)),))

    return train


def _images(signs: list[float]) -> np.ndarray:
    return np.stack([np.full((1, 2, 2), s, dtype=np.float32) for s in signs])


def test_no_rounds_is_the_supervised_student():
    calls = []
    images, labels = _images([1.0, -1.0]), np.array([1, 0])
    trained = self_train(
        _recording_train(0.99, calls),
        images,
        labels,
        _images([1.0]),
        SETTINGS,
        rounds=0,
        confidence=0.9,
    )
    assert len(calls) == 1 and trained.final is trained.supervised
    assert trained.pseudo_labelled == ()


def test_each_round_adds_the_models_confident_predictions_to_the_labelled_set():
    calls, progress = [], []
    images, labels = _images([1.0, -1.0]), np.array([0, 0])  # labels the model disagrees with
    pool = _images([2.0, -2.0, 3.0])
    trained = self_train(
        _recording_train(0.95, calls),
        images,
        labels,
        pool,
        SETTINGS,
        rounds=2,
        confidence=0.9,
        progress=lambda f, m: progress.append((f, m)),
    )
    assert len(calls) == 3 and trained.pseudo_labelled == (3, 3)
    for round_images, round_labels in calls[1:]:
        assert np.array_equal(round_images, np.concatenate([images, pool]))
        # The labelled examples keep their labels; the pool gets the model's own argmax.
        assert round_labels.tolist() == [0, 0, 1, 0, 1]
    assert trained.final.test_curve == (3.0,) and trained.supervised.test_curve == (1.0,)
    assert [f for f, _ in progress] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert "self-training round 2/2" in progress[-1][1]


@pytest.mark.parametrize(("p", "kept"), [(0.85, 0), (0.91, 2), (0.99, 2)])
def test_only_predictions_at_the_confidence_threshold_or_above_become_pseudo_labels(p, kept):
    calls = []
    trained = self_train(
        _recording_train(p, calls),
        _images([1.0]),
        np.array([1]),
        _images([2.0, -2.0]),
        SETTINGS,
        rounds=1,
        confidence=0.9,
    )
    assert trained.pseudo_labelled == (kept,)
    assert len(calls[1][1]) == 1 + kept


def test_an_empty_pool_adds_nothing():
    calls = []
    empty = np.zeros((0, 1, 2, 2), np.float32)
    trained = self_train(
        _recording_train(0.99, calls),
        _images([1.0]),
        np.array([1]),
        empty,
        SETTINGS,
        rounds=1,
        confidence=0.5,
    )
    assert trained.pseudo_labelled == (0,) and len(calls[1][1]) == 1
