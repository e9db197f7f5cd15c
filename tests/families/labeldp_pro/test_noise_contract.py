"""LabelDP-Pro's noise contract: every step releases the clipped sum plus N(0, (σC)²) over B.

The accountant is told σ, q and the number of steps; this test checks that the trainer really
does that: one release per step, each on a Poisson batch at rate q = B / n, each carrying fresh
Gaussian noise of standard deviation σC per coordinate, and that the denoiser receives exactly
that release. A spy wraps the real release (:func:`trainer.noisy_gradient`) and, at the same
weights, recomputes the step's noise-free clipped sum, so the noise the step added is measured,
not read from an argument: a quarter of the noise, a doubled sampling rate or a step without
noise fails here (each checked by planting it; see issue 51).
"""

import math

import numpy as np
import pytest
import torch

from labeldp_core.data import load_dataset
from labeldp_core.families.labeldp_pro import trainer
from labeldp_core.training import TrainSettings

N, BATCH, EPOCHS, SIGMA, CLIP = 300, 50, 2, 3.0, 0.1


@pytest.fixture(scope="module")
def observed() -> dict:
    """A short run's releases, the batches they read, the denoiser's inputs and the outcome."""
    data = load_dataset("digits")
    real_release, real_denoise = trainer.noisy_gradient, trainer.denoise
    seen: dict = {"noise": [], "batches": [], "released": [], "denoised": []}

    def spy_release(model, images, labels, clip, noise_std, expected_batch, generator):
        released = real_release(model, images, labels, clip, noise_std, expected_batch, generator)
        quiet = torch.Generator().manual_seed(0)
        signal = real_release(model, images, labels, clip, 0.0, expected_batch, quiet)
        seen["noise"].append((released - signal) * BATCH)
        seen["batches"].append(int(images.shape[0]))
        seen["released"].append(released)
        return released

    def spy_denoise(noisy, *args, **kwargs):
        seen["denoised"].append(noisy)
        return real_denoise(noisy, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainer, "noisy_gradient", spy_release)
        patch.setattr(trainer, "denoise", spy_denoise)
        seen["outcome"] = trainer.train_labeldp_pro(
            (data.x_train[:N], data.y_train[:N], data.x_test[:50], data.y_test[:50]),
            10,
            TrainSettings("cnn-small", epochs=EPOCHS, batch_size=BATCH, learning_rate=0.5),
            trainer.ProSettings(SIGMA, CLIP, public_batch=10, projection_steps=2),
            seed=0,
        )
    return seen


def test_every_step_releases_once_and_the_denoiser_sees_that_release(observed):
    steps = EPOCHS * math.ceil(N / BATCH)
    assert observed["outcome"].steps == steps
    assert len(observed["released"]) == steps
    assert len(observed["denoised"]) == steps
    for released, denoised in zip(observed["released"], observed["denoised"], strict=True):
        assert denoised is released


def test_each_step_adds_fresh_gaussian_noise_of_sigma_times_clip(observed):
    # Per step, |noise|^2 / (sigma C)^2 is chi-square with d degrees of freedom: its ratio to d
    # has standard deviation sqrt(2 / d) (0.023 for the small CNN's 3,690 weights). Six of them
    # bound every step; a quarter of the noise gives 1/16, a step without noise 0.
    dimension = observed["noise"][0].numel()
    tolerance = 6 * math.sqrt(2 / dimension)
    for step, noise in enumerate(observed["noise"]):
        ratio = float(noise.square().mean()) / (SIGMA * CLIP) ** 2
        assert abs(ratio - 1) < tolerance, (step, ratio)
    # Fresh each step: two steps' noises are uncorrelated (|corr| ~ 1 / sqrt(d)).
    first, second = observed["noise"][0], observed["noise"][1]
    correlation = float(torch.corrcoef(torch.stack([first, second]))[0, 1])
    assert abs(correlation) < 6 / math.sqrt(dimension)


def test_the_batches_are_poisson_at_rate_b_over_n(observed):
    # The drawn sizes over all steps are Binomial(N x steps, q), q = B / N: within five of its
    # standard deviations (a doubled rate is off by about 27 of them).
    q = BATCH / N
    assert observed["outcome"].sample_rate == q
    trials = N * len(observed["batches"])
    drawn = int(np.sum(observed["batches"]))
    assert abs(drawn - trials * q) < 5 * math.sqrt(trials * q * (1 - q)), drawn
