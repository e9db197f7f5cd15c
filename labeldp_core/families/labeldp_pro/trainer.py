"""LabelDP-Pro training: DP-SGD's noisy step, denoised by projection before the update.

Ghazi, Huang, Kamath, Kumar, Manurangsi, Zhang, *LabelDP-Pro: Learning with Label Differential
Privacy via Projections*, ICLR 2024 (OpenReview JnYaF3vv3G). Each step:

1. DP-SGD's release (as :mod:`labeldp_core.training.dpsgd`, on the same Poisson and noise
   generators): a Poisson batch I_G at rate q, each example's gradient on its (private) label
   clipped to norm C, summed, Gaussian noise N(0, (sigma C)^2) added, divided by the expected
   batch. This is the only step that reads labels.
2. The ALTCONV denoiser (:mod:`labeldp_core.families.labeldp_pro.denoiser`): an independently
   drawn batch I_P of n2 examples, its clipped gradients for every class k, and the projection of
   the noisy gradient onto their convex hull (``hull="joint"``, the paper's) or onto I_P's
   mean gradients under every soft labelling (``"per_example"``); the projection is smoothed
   towards uniform weights (the paper's Section 3.3) or towards the noisy gradient.

Why the denoiser costs no privacy: I_P is drawn from its own generator, independently of I_G and
of every label, and the hull is built from features and the current weights only (both already
public or released). The update is therefore a function of the released noisy gradient and of
label-free inputs: post-processing of DP-SGD's release, which the accountant already covers.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, vmap
from torch.nn import functional

from labeldp_core.accounting.dpsgd import check_clip, check_noise_multiplier, sampling_schedule
from labeldp_core.base.threads import training_threads
from labeldp_core.base.validation import (
    check_labels,
    check_num_classes,
    check_real_array,
    check_seed,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.labeldp_pro.denoiser import denoise, unflatten
from labeldp_core.models.zoo import build_model
from labeldp_core.noise.secure_noise import check_noise
from labeldp_core.training.direct_sgd import DirectSGD
from labeldp_core.training.dpsgd import DPSGDOutcome, _draw_generators
from labeldp_core.training.settings import ProgressFn, TrainSettings

__all__ = [
    "RATE_RULES",
    "SMOOTHING_RULES",
    "ProOutcome",
    "ProSettings",
    "noise_smoothing",
    "noisy_gradient",
    "resolved_smoothing",
    "step_rate",
    "train_labeldp_pro",
]

#: Offset of the seed of I_P's generator (it reads no label, so seeding it costs no privacy).
_PUBLIC_SEED_OFFSET = 0x9A11


@dataclass(frozen=True)
class ProSettings:
    """LabelDP-Pro's knobs beside the model's: DP-SGD's noise and clip, and the denoiser's."""

    noise_multiplier: float
    clip: float
    public_batch: int = 100
    smoothing: float = 0.75
    smooth_towards: str = "uniform"
    projection_steps: int = 20
    momentum: float = 0.9
    hull: str = "per_example"
    #: eta of the paper's projection update; None: the step 1 / L.
    projection_lr: float | None = None
    #: FISTA (accelerated) projection steps instead of plain PGD ones.
    accelerated: bool = False
    #: Where the projection's weights start: ``uniform``, or ``predicted`` (the model's softmax).
    projection_start: str = "uniform"
    #: ``fixed``: lambda is ``smoothing``; ``noise``: from the noise (:func:`noise_smoothing`).
    smoothing_rule: str = "fixed"
    #: ``fixed``: the rate as set; ``smoothing``: scaled down as lambda grows (:func:`step_rate`).
    rate_rule: str = "fixed"


#: How lambda is chosen: the ``smoothing`` setting, or from the noise's size.
SMOOTHING_RULES = ("fixed", "noise")
#: How the learning rate is chosen: as set, or cut to a quarter as lambda goes from 0 to 1.
RATE_RULES = ("fixed", "smoothing")


def noise_smoothing(noise_multiplier: float, dimension: int, expected_batch: float) -> float:
    """The smoothing r^2 / (1 + r^2), r = sigma sqrt(d) / B: the noise's norm over the clip.

    The mean clipped gradient, the signal, has norm at most C; the noise added to it has
    expected norm about sigma C sqrt(d) / B. Mixing the noisy gradient with the projection in
    proportion to the noise's power against the largest signal's is a shrinkage weight: near 1
    (the projection alone) where the noise swamps every signal (small epsilon), near 0 (plain
    DP-SGD) where the noise is small against it. It reads only public quantities.

    >>> round(noise_smoothing(1.0, 1024**2, 1024), 3)
    0.5
    """
    ratio = noise_multiplier * math.sqrt(dimension) / expected_batch
    return ratio**2 / (1.0 + ratio**2)


def step_rate(pro: ProSettings, learning_rate: float, smoothing: float) -> float:
    """The SGD rate a run uses: ``learning_rate``, or ``learning_rate (1 - 3 lambda / 4)``.

    The projection's step is biased (its hull is another batch's gradients), so the more the
    step leans on it, the shorter it is taken: plain DP-SGD's step (lambda 0) at the full rate,
    the projection alone at a quarter of it. Measured on Fashion-MNIST, seed 0: at eps 0.1
    (lambda 0.85) rate 4 gave 0.731, 6 gave 0.722, and 12 (lambda 0.75) 0.601; at eps 1
    (lambda 0.09) rate 12 gave 0.798 and 6 (lambda 0) 0.780.
    """
    if pro.rate_rule not in RATE_RULES:
        raise ValueError(f"rate_rule must be one of {RATE_RULES}, not {pro.rate_rule!r}")
    return learning_rate if pro.rate_rule == "fixed" else learning_rate * (1 - 0.75 * smoothing)


def resolved_smoothing(pro: ProSettings, dimension: int, expected_batch: float) -> float:
    """The lambda a run uses: ``pro.smoothing``, or :func:`noise_smoothing` under rule ``noise``."""
    if pro.smoothing_rule not in SMOOTHING_RULES:
        raise ValueError(
            f"smoothing_rule must be one of {SMOOTHING_RULES}, not {pro.smoothing_rule!r}"
        )
    if pro.smoothing_rule == "fixed":
        return pro.smoothing
    return noise_smoothing(pro.noise_multiplier, dimension, expected_batch)


@dataclass(frozen=True)
class ProOutcome(DPSGDOutcome):
    """DP-SGD's outcome, plus the lambda and SGD rate the run used (the settings', or rules')."""

    smoothing: float
    learning_rate: float


def noisy_gradient(
    model: nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    clip: float,
    noise_std: float,
    expected_batch: float,
    generator: torch.Generator,
) -> torch.Tensor:
    """DP-SGD's release as one vector over the model's parameters.

    The sum of the per-example gradients clipped to ``clip``, plus N(0, noise_std^2) on every
    coordinate, divided by the expected batch.
    """
    params = {name: p.detach() for name, p in model.named_parameters()}
    summed = torch.zeros(sum(p.numel() for p in params.values()))
    if images.shape[0] > 0:

        def loss(p: dict[str, torch.Tensor], image: torch.Tensor, label: torch.Tensor):
            logits = functional_call(model, p, (image.unsqueeze(0),))
            return functional.cross_entropy(logits, label.unsqueeze(0))

        # Each example its own dropout mask, as a per-example gradient has.
        per_example = vmap(grad(loss), in_dims=(None, 0, 0), randomness="different")
        grads = per_example(params, images, labels)
        rows = torch.cat([g.flatten(1) for g in grads.values()], dim=1)
        factors = (clip / rows.norm(dim=1).clamp_min(1e-12)).clamp(max=1.0)
        summed = (rows * factors.unsqueeze(1)).sum(dim=0)
    noise = torch.normal(0.0, noise_std, summed.shape, generator=generator)
    return (summed + noise) / expected_batch


def _accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    """Test accuracy in evaluation mode (no dropout); the model is left training."""
    model.eval()
    with torch.inference_mode():
        predicted = torch.cat(
            [model(images[i : i + 2048]).argmax(1) for i in range(0, len(images), 2048)]
        )
    model.train()
    return float((predicted == labels).float().mean())


def _checked_data(
    data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], num_classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The four arrays, checked: labels in 0..K-1, finite (n, C, H, W) images, one per label."""
    if not isinstance(data, tuple | list) or len(data) != 4:
        raise InvalidInputError(
            "data must be (training images, training labels, test images, test labels), got "
            f"{type(data).__name__}"
        )
    num_classes = check_num_classes(num_classes)
    y_train, y_test = check_labels(data[1], num_classes), check_labels(data[3], num_classes)
    x_train = check_real_array(data[0], "training images", finite=True).astype(np.float32)
    x_test = check_real_array(data[2], "test images", finite=True).astype(np.float32)
    for name, images, labels in (("training", x_train, y_train), ("test", x_test, y_test)):
        if images.ndim != 4:
            raise InvalidInputError(
                f"{name} images must be an (n, channels, height, width) array, got shape "
                f"{images.shape}"
            )
        if images.shape[0] != labels.size:
            raise InvalidInputError(
                f"{name} images have {images.shape[0]} rows but {labels.size} labels; give one "
                "image per label"
            )
    if x_train.shape[1:] != x_test.shape[1:]:
        raise InvalidInputError(
            f"training and test images must have the same shape per image, got "
            f"{x_train.shape[1:]} and {x_test.shape[1:]}"
        )
    return x_train, y_train, x_test, y_test


def _check_settings(settings: TrainSettings, pro: "ProSettings", noise: str, seed: int) -> None:
    """Refuse settings of the wrong kind, an unknown noise mode and a bad seed in one sentence."""
    if not isinstance(settings, TrainSettings):
        raise InvalidInputError(f"settings must be a TrainSettings, got {settings!r}")
    if not isinstance(pro, ProSettings):
        raise InvalidInputError(f"pro must be a ProSettings, got {pro!r}")
    check_noise(noise)
    check_seed(seed)


@training_threads()
def train_labeldp_pro(
    data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    num_classes: int,
    settings: TrainSettings,
    pro: ProSettings,
    seed: int,
    progress: ProgressFn | None = None,
    noise: str = "float",
    step_hook: Callable[[torch.Tensor, torch.Tensor], None] | None = None,
) -> "ProOutcome":
    """Train with LabelDP-Pro (SGD with momentum) and score the model after every epoch.

    Args:
        data: training images and labels, test images and labels.
        num_classes: K.
        settings: model, epochs, learning rate and ``batch_size`` as DP-SGD's expected batch.
        pro: noise multiplier, clip and the denoiser's settings.
        seed: seeds the weights, I_P's draws, and in ``float`` mode the Poisson draws and noise.
        progress: called after every epoch with (epochs done, epochs in all).
        noise: ``float`` or ``secure``, as DP-SGD's (the generators of the private draws).
        step_hook: called with (noisy, denoised) after every step (diagnostics, tests).

    Raises:
        InvalidInputError: for labels outside 0..K-1, images that are not finite or do not
            match the labels, settings of the wrong kind, an unknown noise mode or a bad seed.
    """
    x_train, y_train, x_test, y_test = _checked_data(data, num_classes)
    _check_settings(settings, pro, noise, seed)
    sigma, clip = check_noise_multiplier(pro.noise_multiplier), check_clip(pro.clip)
    n = int(x_train.shape[0])
    sample_rate, steps = sampling_schedule(n, settings.batch_size, settings.epochs)
    sampler, noise_generator = _draw_generators(seed, noise)
    public_generator = torch.Generator().manual_seed(seed + _PUBLIC_SEED_OFFSET)
    torch.manual_seed(seed)
    inputs, labels = torch.tensor(x_train, dtype=torch.float32), torch.tensor(y_train)
    test_inputs, test_labels = torch.tensor(x_test, dtype=torch.float32), torch.tensor(y_test)
    model = build_model(settings.model, tuple(x_train.shape[1:]), num_classes)
    dimension = sum(p.numel() for p in model.parameters())
    smoothing = resolved_smoothing(pro, dimension, settings.batch_size)
    rate = step_rate(pro, settings.learning_rate, smoothing)
    optimiser = DirectSGD(model.parameters(), rate, pro.momentum)
    curve, drawn, empty = [], 0, 0
    for epoch in range(settings.epochs):
        for _ in range(steps // settings.epochs):
            batch = torch.nonzero(torch.rand(n, generator=sampler) < sample_rate).squeeze(1)
            drawn, empty = drawn + int(batch.numel()), empty + int(batch.numel() == 0)
            noisy = noisy_gradient(
                model,
                inputs[batch],
                labels[batch],
                clip,
                sigma * clip,
                settings.batch_size,
                noise_generator,
            )
            public = torch.randint(n, (pro.public_batch,), generator=public_generator)
            step, _ = denoise(
                noisy,
                model,
                inputs[public],
                clip,
                smoothing,
                pro.projection_steps,
                pro.smooth_towards,
                pro.hull,
                pro.projection_lr,
                pro.accelerated,
                pro.projection_start,
            )
            if step_hook is not None:
                step_hook(noisy, step)
            params = dict(model.named_parameters())
            for name, value in unflatten(step, params).items():
                params[name].grad = value.clone()
            optimiser.step()
        curve.append(_accuracy(model, test_inputs, test_labels))
        if progress is not None:
            progress(epoch + 1, settings.epochs)
    model.eval()
    outcome = (model, tuple(curve), sample_rate, steps, drawn / steps, empty)
    return ProOutcome(*outcome, smoothing=smoothing, learning_rate=rate)
