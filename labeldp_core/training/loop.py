"""A fast in-memory training loop: tensors stay in memory, batches are slices of a shuffled index.

No per-item DataLoader: on a 2-core CPU the per-item collation of a DataLoader costs more than the
small models' arithmetic. The CNN runs in channels_last layout, which oneDNN's convolutions prefer.
"""

import warnings
from collections.abc import Callable

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from labeldp_core.base.threads import training_threads
from labeldp_core.models import build_model
from labeldp_core.training.allocator import keep_freed_memory
from labeldp_core.training.fused_adam import FusedAdam
from labeldp_core.training.joining import ClassifierJob, current_batch
from labeldp_core.training.settings import ProgressFn, TrainOutcome, TrainSettings

__all__ = [
    "ProgressFn",
    "TrainOutcome",
    "TrainSettings",
    "accuracy_on",
    "adam",
    "fit_classifier",
    "predict_proba",
    "predict_values",
    "train_alone",
    "train_classifier",
    "train_regressor",
]

EVAL_BATCH = 4096


def _memory_format(settings: TrainSettings) -> torch.memory_format:
    return torch.channels_last if settings.model.startswith("cnn") else torch.contiguous_format


def _as_input(images: np.ndarray, settings: TrainSettings) -> torch.Tensor:
    """The images as float32 in the model's memory layout, sharing a float32 array's memory.

    The datasets' arrays are read-only and shared by every run in the process. Training only
    reads its inputs (a batch is a gathered copy), so wrapping them instead of copying saves a
    copy of the whole split per run (45 ms and 188 MB for Fashion-MNIST's training images).
    """
    if images.dtype == np.float32:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            tensor = torch.from_numpy(np.ascontiguousarray(images))
    else:
        tensor = torch.tensor(images, dtype=torch.float32)
    return tensor.contiguous(memory_format=_memory_format(settings))


def _outputs(model: nn.Module, inputs: torch.Tensor) -> torch.Tensor:
    model.eval()
    with torch.inference_mode():
        parts = [model(inputs[i : i + EVAL_BATCH]) for i in range(0, inputs.shape[0], EVAL_BATCH)]
    return torch.cat(parts)


def adam(
    model: nn.Module, learning_rate: float, *, fused: bool = True
) -> "FusedAdam | torch.optim.Adam":
    """Adam, by default its fused kernel called directly: one pass over each parameter.

    On the 2-core machine two interleaved per-step timings of the CNN at batch 128 (an ad-hoc
    script, not in ``bench/``) put the fused kernel 3.7% and 8.2% ahead of the default, and
    calling it without ``torch.optim``'s wrapping saves more (:class:`FusedAdam`, the same
    numbers byte for byte; ``bench/optimiser_speed.py``).

    The fused kernel walks a parameter and its gradient in memory order and ignores their
    strides (PyTorch 2.14), so it needs every gradient in its parameter's memory layout.
    Autograd guarantees that; a gradient set by hand need not (Opacus's DP optimisers hand a
    channels_last convolution weight an NCHW gradient).
    Pass ``fused=False`` there: torch's default implementation, which indexes by position.
    """
    if fused:
        return FusedAdam(model.parameters(), learning_rate)
    return torch.optim.Adam(model.parameters(), lr=learning_rate, fused=False)


def accuracy_on(model: nn.Module, test_inputs: torch.Tensor, test_labels: torch.Tensor) -> float:
    """The share of ``test_inputs`` that ``model`` classifies as ``test_labels`` say."""
    predicted = _outputs(model, test_inputs).argmax(dim=1)
    return float((predicted == test_labels).to(torch.float32).mean())


def _fit(
    x_train: np.ndarray,
    targets: torch.Tensor,
    outputs: int,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    evaluate: Callable[[nn.Module], float] | None,
    settings: TrainSettings,
    seed: int,
    progress: ProgressFn | None,
) -> TrainOutcome:
    keep_freed_memory()
    torch.manual_seed(seed)
    shuffler = torch.Generator().manual_seed(seed)
    inputs = _as_input(x_train, settings)
    model = build_model(settings.model, tuple(x_train.shape[1:]), outputs)
    model = model.to(memory_format=_memory_format(settings))
    optimiser = adam(model, settings.learning_rate)
    n = inputs.shape[0]
    curve = []
    with training_threads():
        for epoch in range(settings.epochs):
            model.train()
            order = torch.randperm(n, generator=shuffler)
            for start in range(0, n, settings.batch_size):
                batch = order[start : start + settings.batch_size]
                optimiser.zero_grad(set_to_none=True)
                outputs = model(inputs.index_select(0, batch))
                loss_fn(outputs, targets.index_select(0, batch)).backward()
                optimiser.step()
            if evaluate is not None:
                curve.append(evaluate(model))
            if progress is not None:
                progress(epoch + 1, settings.epochs)
    model.eval()
    return TrainOutcome(model, tuple(curve))


def train_classifier(
    x_train: np.ndarray,
    targets: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    num_classes: int,
    settings: TrainSettings,
    seed: int,
    progress: ProgressFn | None = None,
) -> TrainOutcome:
    """Train a classifier on hard labels ``(n,)`` or soft labels ``(n, K)`` (rows of probabilities).

    Returns the model and its test accuracy after every epoch. Inside a grid computed together
    (:mod:`labeldp_core.experiments.together`) the grid's batch may train it beside the grid's
    other points (:mod:`labeldp_core.training.batched`), with the same outcome, byte for byte.
    """
    job = ClassifierJob(x_train, targets, x_test, y_test, num_classes, settings, seed, progress)
    batch = current_batch()
    trained = None if batch is None else batch.train(job)
    return train_alone(job) if trained is None else trained


def train_alone(job: ClassifierJob) -> TrainOutcome:
    """Train ``job``'s classifier by itself (see :func:`train_classifier`)."""
    target_tensor = torch.tensor(job.targets)
    if target_tensor.ndim == 2:
        target_tensor = target_tensor.to(torch.float32)
    test_inputs = _as_input(job.x_test, job.settings)
    test_labels = torch.tensor(job.y_test)
    return _fit(
        job.x_train,
        target_tensor,
        job.num_classes,
        functional.cross_entropy,
        lambda model: accuracy_on(model, test_inputs, test_labels),
        job.settings,
        job.seed,
        job.progress,
    )


def fit_classifier(
    x_train: np.ndarray,
    targets: np.ndarray,
    num_classes: int,
    settings: TrainSettings,
    seed: int,
    progress: ProgressFn | None = None,
) -> nn.Module:
    """Train a classifier on hard labels without scoring it after every epoch.

    For ensembles (PATE's teachers) that are scored once, all together, after training.
    """
    return _fit(
        x_train,
        torch.tensor(targets),
        num_classes,
        functional.cross_entropy,
        None,
        settings,
        seed,
        progress,
    ).model


def train_regressor(
    x_train: np.ndarray,
    values: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    settings: TrainSettings,
    seed: int,
    progress: ProgressFn | None = None,
) -> TrainOutcome:
    """Train a one-output regression head with MSE loss; returns the test MSE after every epoch."""
    target_tensor = torch.tensor(values, dtype=torch.float32)
    test_inputs = _as_input(x_test, settings)
    test_values = torch.tensor(y_test, dtype=torch.float32)

    def squared_error(prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return functional.mse_loss(prediction.squeeze(1), target)

    def mse(model: nn.Module) -> float:
        return float(squared_error(_outputs(model, test_inputs), test_values))

    return _fit(x_train, target_tensor, 1, squared_error, mse, settings, seed, progress)


def predict_proba(model: nn.Module, images: np.ndarray, settings: TrainSettings) -> np.ndarray:
    """Softmax outputs ``(n, K)`` of a trained classifier as float64 NumPy."""
    logits = _outputs(model, _as_input(images, settings))
    return torch.softmax(logits, dim=1).to(torch.float64).numpy()


def predict_values(model: nn.Module, images: np.ndarray, settings: TrainSettings) -> np.ndarray:
    """Predictions ``(n,)`` of a trained regressor as float64 NumPy."""
    return _outputs(model, _as_input(images, settings)).squeeze(1).to(torch.float64).numpy()
