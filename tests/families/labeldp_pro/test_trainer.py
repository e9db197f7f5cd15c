"""LabelDP-Pro's trainer: only DP-SGD's release reads labels; a digits run spends at most ε."""

import numpy as np
import pytest
import torch

from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.experiments import make_config, run
from labeldp_core.families.labeldp_pro import trainer
from labeldp_core.training import TrainSettings


def _train(labels: np.ndarray, monkeypatch, start: str = "uniform") -> torch.Tensor:
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
        trainer.ProSettings(1.0, 1.0, public_batch=20, projection_steps=5, projection_start=start),
        seed=0,
        step_hook=lambda noisy, step: steps.append(step.clone()),
    )
    return torch.stack(steps)


@pytest.mark.parametrize("start", ["uniform", "predicted"])
def test_scrambling_the_labels_changes_nothing_but_the_dp_sgd_release(monkeypatch, start):
    labels = load_dataset("digits").y_train[:300]
    scrambled = np.random.default_rng(0).permutation(labels)
    assert (scrambled != labels).any()
    steps = _train(labels, monkeypatch, start)
    assert torch.equal(steps, _train(scrambled, monkeypatch, start))


def test_the_noise_rule_leans_on_the_projection_as_the_noise_outweighs_the_clip():
    pro = trainer.ProSettings(20.0, 0.1, smoothing=0.3, smoothing_rule="noise")
    # r = sigma sqrt(d) / B: 20 x 100 / 1000 = 2, lambda 4 / 5; at sigma 1, r = 0.1.
    assert trainer.resolved_smoothing(pro, 10_000, 1000) == pytest.approx(0.8)
    quiet = trainer.ProSettings(1.0, 0.1, smoothing=0.3, smoothing_rule="noise")
    assert trainer.resolved_smoothing(quiet, 10_000, 1000) == pytest.approx(0.01 / 1.01)
    fixed = trainer.ProSettings(20.0, 0.1, smoothing=0.3)
    assert trainer.resolved_smoothing(fixed, 10_000, 1000) == 0.3
    with pytest.raises(ValueError, match="smoothing_rule"):
        trainer.resolved_smoothing(trainer.ProSettings(1.0, 0.1, smoothing_rule="tuned"), 1, 1)


def test_the_rate_rule_quarters_the_rate_as_the_projection_takes_over():
    pro = trainer.ProSettings(1.0, 0.1, rate_rule="smoothing")
    assert trainer.step_rate(pro, 12.0, 0.0) == 12.0  # plain DP-SGD's step
    assert trainer.step_rate(pro, 12.0, 0.5) == pytest.approx(7.5)
    assert trainer.step_rate(pro, 12.0, 1.0) == pytest.approx(3.0)  # the projection alone
    assert trainer.step_rate(trainer.ProSettings(1.0, 0.1), 12.0, 1.0) == 12.0
    with pytest.raises(ValueError, match="rate_rule"):
        trainer.step_rate(trainer.ProSettings(1.0, 0.1, rate_rule="adaptive"), 1.0, 0.5)


def test_a_run_reports_the_smoothing_and_rate_its_rules_chose(tmp_path):
    settings = {"smoothing_rule": "noise", "rate_rule": "smoothing", "dp_learning_rate": 2.0}
    config = make_config("labeldp-pro", "digits", 1.0, epochs=1, settings=settings)
    cache = ResultCache(tmp_path)
    try:
        details = run(config, cache).details
    finally:
        cache.close()
    assert details["model_trained"] == "logistic"  # digits' recipe for the model choice cnn
    size = sum(p.numel() for p in trainer.build_model("logistic", (1, 8, 8), 10).parameters())
    expected = trainer.noise_smoothing(details["noise_multiplier"], size, 256)
    assert details["smoothing"] == pytest.approx(expected)
    assert details["learning_rate_used"] == pytest.approx(2.0 * (1 - 0.75 * expected))
    assert "(noise)" in details["denoiser"]
    assert details["denoiser"].startswith("ALTCONV with per-example hulls (not the paper's")


def test_the_details_name_the_joint_hull_as_the_papers(tmp_path):
    # Issue 51: the details called every hull "ALTCONV" as if it were the paper's; the paper's
    # is one convex hull of all n2 K per-class gradients (its Section 3.2 and Appendix C).
    config = make_config("labeldp-pro", "digits", 1.0, epochs=1, settings={"hull": "joint"})
    cache = ResultCache(tmp_path)
    try:
        details = run(config, cache).details
    finally:
        cache.close()
    assert details["denoiser"].startswith(
        "ALTCONV (the paper's hull): projection onto the convex hull of all 1,000 clipped "
        "per-class gradients of 100 label-free examples (one simplex over every weight)"
    )


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


def test_the_settings_offer_exactly_the_trainers_rules():
    from labeldp_core.families.labeldp_pro.experiment import SPEC

    assert SPEC.settings["smoothing_rule"].choices == trainer.SMOOTHING_RULES
    assert SPEC.settings["rate_rule"].choices == trainer.RATE_RULES
