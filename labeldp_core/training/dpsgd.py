"""DP-SGD training with Opacus: Poisson-sampled batches of in-memory tensors, per-example clipping.

Every step draws each training example independently with probability q = batch_size / n
(Poisson sampling, which the accountants assume), computes each sampled example's gradient,
clips it to L2 norm ``clip``, sums, adds Gaussian noise of standard deviation
``noise_multiplier * clip`` and divides by the expected batch size; Adam then takes the step.
An empty draw still takes a step of pure noise, so the number of noisy releases is exactly
``epochs * ceil(n / batch_size)``, the figure the accounting is told.

As in :mod:`labeldp_core.training.loop` the tensors stay in memory (no DataLoader, whose per-item
collation costs more than the small models' arithmetic on 2 cores) and the CNN runs channels_last.

Per-example gradients: Opacus 1.6 offers ``hooks`` (hand-written per-layer rules run from
backward hooks), ``functorch`` (vmap over the layers), ``ew`` (PyTorch's ExpandedWeights) and
``ghost`` (fast gradient clipping, which never forms a dense layer's per-example gradients but
needs a second backward pass). This module offers three modes:

- ``ghost-bk`` (the default): Opacus's ghost-clipping norms, with the clipped sum taken straight
  from the layers' inputs and output gradients instead of a second backward pass
  (:mod:`labeldp_core.training.bookkeeping`). The fastest in ``bench/dpsgd_speed.py --modes``;
- ``hooks`` and ``functorch``: Opacus's per-example gradients, then its clipping.

With channels_last two of Opacus's own choices break: its convolution rule unfolds its input with
strides that assume NCHW memory, so ``hooks`` returns wrong per-example gradients without any
error, and ExpandedWeights' convolution rule fails on batches under 32 examples (which Poisson
sampling draws sooner or later). ``hooks`` and ``ghost-bk`` therefore use the layout-safe
convolution rule of :mod:`labeldp_core.training.per_example` (``functorch`` differentiates the
layer itself and is right in either layout), and ``ew`` is not offered.
``tests/training/test_dpsgd.py`` checks ``hooks`` and ``functorch`` against autograd run one example
at a time, and ``ghost-bk``'s clipped sums against the same per-example gradients clipped by hand.

Where the private draws come from (``noise``): in ``float`` mode the Poisson batches and the noise
come from torch generators seeded by the run's seed, so whoever knows the seed replays the run bit
for bit; in ``secure`` mode each generator's whole state comes from os.urandom
(:func:`secure_torch_generator`). The samplers are torch's floating-point ones either way (Opacus's
own secure mode needs torchcsprng, which has no release for this torch). The initial weights (and
the MLP's dropout) come from torch's global generator, seeded in both modes: they read no data.
"""

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch
from opacus.grad_sample import GradSampleModule
from opacus.optimizers import DPOptimizer, DPOptimizerFastGradientClipping
from torch import nn
from torch.nn import functional

from labeldp_core.accounting.dpsgd import check_clip, check_noise_multiplier, sampling_schedule
from labeldp_core.base.threads import training_threads
from labeldp_core.errors import InvalidInputError
from labeldp_core.models import build_model
from labeldp_core.noise.secure_noise import check_noise
from labeldp_core.training.allocator import keep_freed_memory
from labeldp_core.training.bookkeeping import BookkeepingModule
from labeldp_core.training.direct_sgd import DirectSGD
from labeldp_core.training.loop import (
    ProgressFn,
    TrainOutcome,
    TrainSettings,
    _as_input,
    _memory_format,
    _outputs,
    adam,
)
from labeldp_core.training.per_example import conv_per_example_gradients

__all__ = [
    "GRAD_SAMPLE_MODES",
    "DPSGDOutcome",
    "DPSGDSettings",
    "secure_torch_generator",
    "train_dpsgd_classifier",
]

#: The ways of clipping per-example gradients that this loop offers (see the module notes).
GRAD_SAMPLE_MODES = ("ghost-bk", "hooks", "functorch")
#: torch's CPU generator state (``CPUGeneratorImplStateNew``, 5,056 bytes) holds the Mersenne
#: Twister's 624 state words, one per uint64, after the initial seed (uint64), ``left`` and
#: ``seeded`` (int32 each) and ``next`` (uint64).
_MT_WORDS, _MT_OFFSET, _STATE_BYTES = 624, 24, 5056
#: The offset of the noise generator's seed from the batches' in float mode.
_NOISE_SEED_OFFSET = 0x5EED


@dataclass(frozen=True)
class DPSGDSettings:
    """The privacy knobs of DP-SGD; the expected batch size is ``TrainSettings.batch_size``."""

    noise_multiplier: float
    clip: float = 1.0
    grad_sample_mode: str = "ghost-bk"
    #: ``adam`` or ``sgd`` (with ``momentum``), at ``TrainSettings.learning_rate``.
    optimizer: str = "adam"
    momentum: float = 0.0


@dataclass(frozen=True)
class DPSGDOutcome(TrainOutcome):
    """The trained model and test curve, plus the sampling that the accounting must be told."""

    sample_rate: float
    steps: int
    mean_batch: float
    empty_steps: int


class _LayoutSafeGradSampleModule(GradSampleModule):
    """Opacus's hook-based per-example gradients with a convolution rule safe for channels_last.

    A class of its own (not ``register_grad_sampler``) so that Opacus elsewhere is untouched.
    """

    GRAD_SAMPLERS: ClassVar[dict] = {
        **GradSampleModule.GRAD_SAMPLERS,
        nn.Conv2d: conv_per_example_gradients,
    }


def _state_words(state: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """A copy of a generator's ``state`` bytes, and its Mersenne Twister words (uint64) in it."""
    if state.numel() != _STATE_BYTES:
        raise RuntimeError(
            f"torch's generator state has {state.numel()} bytes, not {_STATE_BYTES}: secure "
            "DP-SGD does not know where this torch keeps its Mersenne Twister words"
        )
    raw = state.numpy().copy()
    return raw[_MT_OFFSET : _MT_OFFSET + 8 * _MT_WORDS].view(np.uint64), raw


def _check_layout() -> None:
    """Refuse a torch whose state words are elsewhere: seed 1's first two words are known."""
    words, _ = _state_words(torch.Generator().manual_seed(1).get_state())
    if words[:2].tolist() != [1, 1812433254]:  # Mersenne Twister's 32-bit initialisation
        raise RuntimeError(
            "torch's generator state has a layout secure DP-SGD does not know; use noise=float"
        )


def secure_torch_generator(entropy: Callable[[int], bytes] = os.urandom) -> torch.Generator:
    """A torch generator whose whole Mersenne Twister state comes from ``entropy``.

    ``manual_seed`` keeps only the low 32 bits of a seed (2^32 seeds would replay any run), so
    the 624 words of the state are written instead, from os.urandom unless ``entropy`` is given
    (tests). The generator is fast, not cryptographic; its raw draws are never released.

    Raises:
        RuntimeError: if this torch keeps its generator state in another layout.
    """
    _check_layout()
    generator = torch.Generator()
    words, raw = _state_words(generator.get_state())
    words[:] = np.frombuffer(entropy(4 * _MT_WORDS), dtype=np.uint32)
    generator.set_state(torch.from_numpy(raw))
    return generator


def _draw_generators(seed: int, noise: str) -> tuple[torch.Generator, torch.Generator]:
    """The generators of the Poisson batches and of the Gaussian noise in ``noise`` mode.

    Float: seeded by ``seed`` and ``seed + 0x5EED``, so the seed replays a run bit for bit.
    Secure: each one's whole state from os.urandom, never from the seed.
    """
    if check_noise(noise) == "secure":
        return secure_torch_generator(), secure_torch_generator()
    sampler = torch.Generator().manual_seed(seed)
    return sampler, torch.Generator().manual_seed(seed + _NOISE_SEED_OFFSET)


def _wrap(model: nn.Module, mode: str, clip: float) -> GradSampleModule:
    if mode not in GRAD_SAMPLE_MODES:
        raise InvalidInputError(
            f"unknown grad_sample_mode {mode!r}; choose one of: {', '.join(GRAD_SAMPLE_MODES)}"
        )
    if mode == "ghost-bk":
        return BookkeepingModule(model, clip)
    return _LayoutSafeGradSampleModule(
        model, batch_first=True, loss_reduction="mean", force_functorch=mode == "functorch"
    )


def _dp_optimizer(
    model: nn.Module,
    private: GradSampleModule,
    settings: TrainSettings,
    noise_multiplier: float,
    clip: float,
    generator: torch.Generator,
    optimizer: str = "adam",
    momentum: float = 0.0,
) -> DPOptimizer:
    """Opacus's DP optimiser for ``private`` (wrapping ``model``) around Adam or SGD.

    ``optimizer`` ``sgd`` is SGD with ``momentum`` (the DP-SGD literature's recipe), stepped as
    ``torch.optim.SGD`` steps it without importing ``torch._dynamo``
    (:class:`~labeldp_core.training.direct_sgd.DirectSGD`); ``adam`` is Adam's default
    (unfused) kernel: Opacus sets NCHW gradients on channels_last weights, which the fused
    kernel would pair with the wrong weights (see :func:`adam`). Either way the optimiser only
    ever sees Opacus's noisy clipped sum: the privacy does not depend on it.
    """
    if optimizer == "sgd":
        inner = DirectSGD(model.parameters(), settings.learning_rate, momentum)
    else:
        inner = adam(model, settings.learning_rate, fused=False)
    optimiser_class = (
        DPOptimizerFastGradientClipping if isinstance(private, BookkeepingModule) else DPOptimizer
    )
    return optimiser_class(
        inner,
        noise_multiplier=noise_multiplier,
        max_grad_norm=clip,
        expected_batch_size=settings.batch_size,
        loss_reduction="mean",
        generator=generator,
    )


def _noisy_step(
    private: GradSampleModule, optimiser: DPOptimizer, images: torch.Tensor, labels: torch.Tensor
) -> None:
    """One step: the drawn batch's per-example gradients, clipped, summed, noised, applied.

    An empty draw still takes the step (pure noise), as the accounting assumes.
    """
    optimiser.zero_grad(set_to_none=True)
    bookkeeping = isinstance(private, BookkeepingModule)
    if images.shape[0] == 0:
        for parameter in private.parameters():
            if not parameter.requires_grad:
                continue
            if bookkeeping:
                parameter.grad = torch.zeros_like(parameter)
            else:
                parameter.grad_sample = parameter.new_zeros((0, *parameter.shape))
    else:
        loss = functional.cross_entropy(private(images), labels)
        if bookkeeping:
            private.backward_clipped(loss, images.shape[0])
        else:
            loss.backward()
    optimiser.step()


def train_dpsgd_classifier(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    num_classes: int,
    settings: TrainSettings,
    privacy: DPSGDSettings,
    seed: int,
    progress: ProgressFn | None = None,
    noise: str = "float",
) -> DPSGDOutcome:
    """Train a classifier on hard labels with DP-SGD (SGD or Adam) and score it after every epoch.

    Args:
        x_train: training images ``(n, C, H, W)``.
        y_train: training labels ``(n,)``.
        x_test: test images, scored after every epoch.
        y_test: clean test labels.
        num_classes: K, the number of outputs.
        settings: model, epochs, learning rate, and ``batch_size`` as the expected batch size.
        privacy: noise multiplier, clipping norm and Opacus's per-example gradient mode.
        seed: seeds the initial weights, and in ``float`` mode the Poisson draws and the noise.
        progress: called after every epoch with (epochs done, epochs in all).
        noise: ``float`` (the Poisson draws and the noise replay from ``seed``) or ``secure``
            (their generators' states from os.urandom).

    Returns:
        The model, its test accuracy after every epoch, the sample rate and the steps taken.
    """
    noise_multiplier = check_noise_multiplier(privacy.noise_multiplier)
    clip = check_clip(privacy.clip)
    n = int(x_train.shape[0])
    sample_rate, steps = sampling_schedule(n, settings.batch_size, settings.epochs)
    steps_per_epoch = steps // settings.epochs

    sampler, noise_generator = _draw_generators(seed, noise)
    keep_freed_memory()
    torch.manual_seed(seed)
    inputs = _as_input(x_train, settings)
    labels = torch.tensor(y_train)
    test_inputs = _as_input(x_test, settings)
    test_labels = torch.tensor(y_test)

    model = build_model(settings.model, tuple(x_train.shape[1:]), num_classes)
    model = model.to(memory_format=_memory_format(settings))
    private = _wrap(model, privacy.grad_sample_mode, clip)
    optimiser = _dp_optimizer(
        model,
        private,
        settings,
        noise_multiplier,
        clip,
        noise_generator,
        privacy.optimizer,
        privacy.momentum,
    )
    curve, drawn, empty = [], 0, 0
    with warnings.catch_warnings(), training_threads():
        # Opacus's backward hooks fire on module outputs because the images need no gradient.
        warnings.filterwarnings("ignore", message="Full backward hook is firing")
        for epoch in range(settings.epochs):
            private.train()
            for _ in range(steps_per_epoch):
                batch = torch.nonzero(torch.rand(n, generator=sampler) < sample_rate).squeeze(1)
                drawn += int(batch.numel())
                empty += int(batch.numel() == 0)
                _noisy_step(
                    private, optimiser, inputs.index_select(0, batch), labels.index_select(0, batch)
                )
            predicted = _outputs(model, test_inputs).argmax(dim=1)
            curve.append(float((predicted == test_labels).to(torch.float32).mean()))
            if progress is not None:
                progress(epoch + 1, settings.epochs)
    model.eval()
    return DPSGDOutcome(
        model,
        tuple(curve),
        sample_rate=sample_rate,
        steps=steps,
        mean_batch=drawn / steps,
        empty_steps=empty,
    )
