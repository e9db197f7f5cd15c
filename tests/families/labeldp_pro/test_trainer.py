"""LabelDP-Pro's trainer: only DP-SGD's release reads labels; a digits run spends at most ε."""

import numpy as np
import pytest
import torch

from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.experiments import make_config, run
from labeldp_core.families.labeldp_pro import trainer
from labeldp_core.training import TrainSettings


def _train(labels: np.ndarray, monkeypatch) -> torch.Tensor:
    """Every step a short training takes, with DP-SGD's release replaced by label-blind noise."""
    data = load_dataset("digits")

    def label_blind_release(model, images, labels, clip, noise_std, batch, generator):
        # DP-SGD's release replaced by a fixed vector: what is left must not see the labels.
        size = sum(p.numel() for p in model.parameters())
        return torch.randn(size, generator=generator) * 0.1

    monkeypatch.setattr(trainer, "noisy_gradient", label_blind_release)
    steps = []
    trainer.train_labeldp_pro(
        (data.x_train[:300], labels, data.x_test[:50], data.y_test[:50]),
        10,
        TrainSettings("cnn-small", epochs=2, batch_size=100, learning_rate=0.5),
        trainer.ProSettings(1.0, 1.0, public_batch=20, projection_steps=5),
        seed=0,
        step_hook=lambda noisy, step: steps.append(step.clone()),
    )
    return torch.stack(steps)


def test_scrambling_the_labels_changes_nothing_but_the_dp_sgd_release(monkeypatch):
    labels = load_dataset("digits").y_train[:300]
    scrambled = np.random.default_rng(0).permutation(labels)
    assert (scrambled != labels).any()
    assert torch.equal(_train(labels, monkeypatch), _train(scrambled, monkeypatch))


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_a_digits_run_of_one_epoch_spends_at_most_epsilon(tmp_path, epsilon):
    config = make_config("labeldp-pro", "digits", epsilon, epochs=1)
    cache = ResultCache(tmp_path)
    try:
        result = run(config, cache)
    finally:
        cache.close()
    assert 0.98 * epsilon <= result.epsilon_spent <= epsilon
    assert result.delta <= 1e-5
    assert result.details["steps"] == 6  # ceil(1437 / 256) Poisson steps
