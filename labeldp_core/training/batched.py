"""Many small classifiers trained as one batched model, each exactly as it trains alone.

A grid's points (one mechanism's ε values and seeds) on the logistic model or the MLP each train
a few hundred tiny steps, where launching the operations costs more than their arithmetic. Here
``P`` such trainings go step by step together: one gather of the ``P`` batches, one batched
matrix product per layer (``torch.baddbmm`` on the stacked weights), one loss, one backward, one
fused Adam step over the ``P`` models' parameters.

Each point must come out byte for byte as its own run (:func:`labeldp_core.training.loop`), so
the batched step repeats the single step's operations, point by point:

- each model is built by the same constructor after ``torch.manual_seed(seed)``, and its batches
  come from its own shuffler seeded with ``seed``; its dropout masks are drawn from a generator
  that continues torch's global one where the model's initialisation left it, with the same
  ``bernoulli_`` and ``div_`` as ``F.dropout``;
- the parameters stay each model's own tensors: Adam's fused kernel updates each tensor alone,
  so an element's update does not depend on its neighbours;
- the loss is each point's mean over its own batch (``reduction="none"``, then ``mean(1)``),
  whose gradient ``-1/b`` per example is the one ``cross_entropy``'s mean gives;
- ReLU and the dropout product are exact elementwise operations; a linear layer's products
  are one slice of ``baddbmm`` each, where that runs the same BLAS product per slice as
  ``addmm`` does alone, and each point's own ``addmm`` otherwise. Which is measured, not
  promised by torch: :func:`layer_plan` checks each layer on its shape, batch size and thread
  count (on an AVX2 machine MKL sums a 10-output layer's slices otherwise at every batch size),
  :func:`kernels_agree` then the whole step so planned, and a group whose step differs trains
  one point at a time. Below 400 multiply-adds per product torch takes another, naive kernel
  for ``baddbmm`` whose sums are ordered differently, so such shapes are never batched.

What is not batched trains alone: the CNNs, soft labels, regression and anything else
:func:`batchable` refuses. A grouped convolution does not repeat a single one's sums; written as
patch gathers and matrix products the CNN does train byte for byte together, but eight points
together cost about what they cost one by one, since most of the CNN's step grows with its
examples (``bench/batched_cnn.py``).
"""

import contextlib
import functools
from collections.abc import Iterator

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from labeldp_core.base.threads import training_threads
from labeldp_core.models import build_model
from labeldp_core.training.allocator import keep_freed_memory
from labeldp_core.training.fused_adam import FusedAdam
from labeldp_core.training.joining import BATCHED_MODELS, ClassifierJob
from labeldp_core.training.loop import _as_input, accuracy_on, adam
from labeldp_core.training.settings import TrainOutcome

__all__ = [
    "MODELS",
    "Trained",
    "batchable",
    "group_key",
    "kernels_agree",
    "layer_plan",
    "products_agree",
    "start_models",
    "train_step",
    "train_together",
]

#: The models made only of layers this module batches exactly.
MODELS = BATCHED_MODELS
_LAYERS = (nn.Flatten, nn.Linear, nn.ReLU, nn.Dropout)
#: Below this many multiply-adds torch's ``baddbmm`` uses a naive kernel, not ``addmm``'s BLAS.
_NAIVE_BELOW = 400

#: A trained point: its outcome and torch's global random state its own run would leave.
Trained = tuple[TrainOutcome, torch.Tensor]


def _layer_sizes(job: ClassifierJob) -> list[tuple[int, int]]:
    """The (inputs, outputs) of each linear layer of ``job``'s model (torch's generator kept)."""
    inputs = int(np.prod(job.x_train.shape[1:]))
    with torch.random.fork_rng(devices=[]):
        model = build_model(job.settings.model, tuple(job.x_train.shape[1:]), job.num_classes)
    if not all(isinstance(layer, _LAYERS) for layer in model):
        return []
    sizes = [(m.in_features, m.out_features) for m in model if isinstance(m, nn.Linear)]
    return sizes if sizes and sizes[0][0] == inputs else []


def _batch_sizes(n: int, batch_size: int) -> tuple[int, ...]:
    """The sizes of an epoch's batches: the full one and the last, smaller one, if any."""
    return tuple(sorted({min(batch_size, n), n % batch_size or min(batch_size, n)}))


def batchable(job: ClassifierJob) -> bool:
    """Whether ``job`` trains exactly the same inside a batch: hard labels, a model of MODELS."""
    targets = np.asarray(job.targets)
    if job.settings.model not in MODELS or targets.ndim != 1 or targets.dtype.kind not in "iu":
        return False
    sizes = _layer_sizes(job)
    smallest = min(_batch_sizes(len(job.x_train), job.settings.batch_size))
    return bool(sizes) and all(smallest * i * o >= _NAIVE_BELOW for i, o in sizes)


def group_key(job: ClassifierJob) -> tuple:
    """Jobs with equal keys train together: the same settings, images and test set."""
    return (job.settings, id(job.x_train), id(job.x_test), id(job.y_test), job.num_classes)


def _linear(h: torch.Tensor, layers: list[nn.Linear], together: bool) -> torch.Tensor:
    """Each point's ``layers[p]`` on its ``h[p]``: one ``baddbmm``, or each point's ``addmm``."""
    if not together:
        each = [functional.linear(h[p], m.weight, m.bias) for p, m in enumerate(layers)]
        return torch.stack(each)
    weight = torch.stack([m.weight for m in layers])
    bias = torch.stack([m.bias for m in layers]).unsqueeze(1)
    return torch.baddbmm(bias, h, weight.transpose(1, 2))


def _forward(
    models: list[nn.Sequential],
    x: torch.Tensor,
    masks: list[torch.Generator],
    plan: tuple[bool, ...],
) -> torch.Tensor:
    """The ``P`` models on their ``(P, b, ...)`` batches, as each computes alone (train mode).

    ``plan`` says, layer by linear layer, whether its products run batched (:func:`layer_plan`).
    """
    h, linear = x, 0
    for index, layer in enumerate(models[0]):
        if isinstance(layer, nn.Flatten):
            h = h.flatten(2)
        elif isinstance(layer, nn.Linear):
            h = _linear(h, [m[index] for m in models], plan[linear])
            linear += 1
        elif isinstance(layer, nn.ReLU):
            h = torch.relu(h)
        else:  # nn.Dropout, as F.dropout draws and applies it on the CPU
            keep = 1 - layer.p
            noise = [torch.empty(h.shape[1:]).bernoulli_(keep, generator=g) for g in masks]
            h = h * torch.stack(noise).div_(keep)
    return h


def _loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The sum over points of each point's mean cross-entropy on its own batch."""
    points, size = targets.shape
    each = functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    return each.view(points, size).mean(1).sum()


def start_models(jobs: list[ClassifierJob]) -> tuple[list, list, list]:
    """Each job's model, dropout generator and shuffler, as its own run starts them."""
    models, masks, shufflers = [], [], []
    for job in jobs:
        torch.manual_seed(job.seed)
        shufflers.append(torch.Generator().manual_seed(job.seed))
        models.append(
            build_model(job.settings.model, tuple(job.x_train.shape[1:]), job.num_classes)
        )
        masks.append(torch.Generator())
        masks[-1].set_state(torch.get_rng_state())
    return models, masks, shufflers


def train_step(
    optimiser: FusedAdam | torch.optim.Optimizer,
    models: list[nn.Sequential],
    masks: list[torch.Generator],
    x: torch.Tensor,
    targets: torch.Tensor,
) -> None:
    """One training step of the ``P`` models on their ``(P, b, ...)`` batches and targets."""
    optimiser.zero_grad(set_to_none=True)
    sizes = tuple((m.in_features, m.out_features) for m in models[0] if isinstance(m, nn.Linear))
    plan = layer_plan(sizes, x.shape[1], len(models), torch.get_num_threads())
    _loss(_forward(models, x, masks, plan), targets).backward()
    optimiser.step()


def _train_group(jobs: list[ClassifierJob]) -> list[Trained]:
    """Train ``jobs`` (one group: equal :func:`group_key`) together."""
    keep_freed_memory()
    first = jobs[0]
    settings, n = first.settings, len(first.x_train)
    inputs, test_inputs = _as_input(first.x_train, settings), _as_input(first.x_test, settings)
    test_labels = torch.tensor(first.y_test)
    targets = torch.stack([torch.tensor(job.targets) for job in jobs])
    models, masks, shufflers = start_models(jobs)
    optimiser = adam(nn.ModuleList(models), settings.learning_rate)
    curves: list[list[float]] = [[] for _ in jobs]
    for epoch in range(settings.epochs):
        orders = torch.stack([torch.randperm(n, generator=s) for s in shufflers])
        for start in range(0, n, settings.batch_size):
            batch = orders[:, start : start + settings.batch_size]
            x = inputs.index_select(0, batch.flatten())
            train_step(
                optimiser,
                models,
                masks,
                x.view(*batch.shape, *x.shape[1:]),
                targets.gather(1, batch),
            )
        for job, model, curve in zip(jobs, models, curves, strict=True):
            curve.append(accuracy_on(model, test_inputs, test_labels))
            if job.progress is not None:
                job.progress(epoch + 1, settings.epochs)
    for model in models:
        model.eval()
    return [
        (TrainOutcome(model, tuple(curve)), mask.get_state())
        for model, curve, mask in zip(models, curves, masks, strict=True)
    ]


def _alone(job: ClassifierJob) -> Trained:
    """``job`` trained by the single loop, and the random state it leaves."""
    from labeldp_core.training.loop import train_alone

    outcome = train_alone(job)
    return outcome, torch.get_rng_state()


@functools.cache
def layer_plan(
    sizes: tuple[tuple[int, int], ...], batch: int, points: int, threads: int
) -> tuple[bool, ...]:
    """For each linear layer of ``sizes``, whether ``baddbmm`` computes it as ``addmm`` alone.

    Each layer's forward product and its two gradient products, on random numbers for ``points``
    points of ``batch`` examples, batched against each point's own; checked once per shape and
    thread count in a process (BLAS may split a product otherwise on more threads), torch's
    thread count restored after.
    """
    with _on_threads(threads):
        return tuple(_layer_agrees(size, batch, points) for size in sizes)


@functools.cache
def kernels_agree(
    sizes: tuple[tuple[int, int], ...], batch: int, points: int, threads: int
) -> bool:
    """Whether the planned step gives each point the gradients it gets alone, on ``threads``.

    Random layers of ``sizes`` on a random batch of ``batch`` examples, ``points`` of them, one
    step of the loss each way, each layer batched or not as :func:`layer_plan` says; checked
    once per shape and thread count in a process, torch's thread count restored after.
    """
    plan = layer_plan(sizes, batch, points, threads)
    with _on_threads(threads):
        return _gradients_agree(sizes, batch, points, plan)


@contextlib.contextmanager
def _on_threads(threads: int) -> Iterator[None]:
    """Torch on ``threads`` threads inside the block, its count before restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _random_layers(
    sizes: tuple[tuple[int, int], ...], points: int, draw: torch.Generator
) -> list[list[nn.Linear]]:
    """``points`` stacks of linear layers of ``sizes``, every parameter drawn from ``draw``.

    Built under ``fork_rng``: a check run inside a training leaves its dropout draws alone.
    """
    with torch.random.fork_rng(devices=[]):
        layers = [[nn.Linear(i, o) for i, o in sizes] for _ in range(points)]
    for model in layers:
        for parameter in (p for layer in model for p in layer.parameters()):
            parameter.data = torch.randn(parameter.shape, generator=draw)
    return layers


def _layer_agrees(size: tuple[int, int], batch: int, points: int) -> bool:
    """Whether one linear layer's batched products equal each point's own, in both passes."""
    inputs, outputs = size
    draw = torch.Generator().manual_seed(batch * 1013 + inputs * 31 + outputs)
    layers = [model[0] for model in _random_layers((size,), points, draw)]
    x = torch.randn(points, batch, inputs, generator=draw)
    upstream = torch.randn(points, batch, outputs, generator=draw)
    passes = []
    for together in (False, True):
        h = x.clone().requires_grad_()
        out = _linear(h, layers, together)
        out.backward(upstream)
        passes.append([out, h.grad, *(q.grad for layer in layers for q in layer.parameters())])
        nn.ModuleList(layers).zero_grad(set_to_none=True)
    return all(torch.equal(a, b) for a, b in zip(*passes, strict=True))


def _gradients_agree(
    sizes: tuple[tuple[int, int], ...], batch: int, points: int, plan: tuple[bool, ...]
) -> bool:
    """One check of :func:`kernels_agree` on torch's current threads."""
    draw = torch.Generator().manual_seed(batch * 1009 + points)
    layers = _random_layers(sizes, points, draw)
    x = torch.randn(points, batch, sizes[0][0], generator=draw)
    y = torch.randint(0, sizes[-1][1], (points, batch), generator=draw)
    alone = []
    for p, model in enumerate(layers):
        h = x[p]
        for layer in model:
            h = layer(h)
        functional.cross_entropy(h, y[p]).backward()
        alone.append([q.grad for layer in model for q in layer.parameters()])
        nn.ModuleList(model).zero_grad(set_to_none=True)
    _loss(_forward([nn.Sequential(*m) for m in layers], x, [], plan), y).backward()
    together = [[q.grad for layer in model for q in layer.parameters()] for model in layers]
    return all(
        torch.equal(a, b)
        for one, other in zip(alone, together, strict=True)
        for a, b in zip(one, other, strict=True)
    )


def products_agree(jobs: list[ClassifierJob]) -> bool:
    """Whether the batched products give each of ``jobs`` the gradients it gets alone, here."""
    sizes = tuple(_layer_sizes(jobs[0]))
    n, size = len(jobs[0].x_train), jobs[0].settings.batch_size
    threads = torch.get_num_threads()
    return all(kernels_agree(sizes, b, len(jobs), threads) for b in _batch_sizes(n, size))


def train_together(jobs: list[ClassifierJob]) -> list[Trained]:
    """Train every job, the batchable ones of equal :func:`group_key` together, in ``jobs``' order.

    Returns each job's outcome (byte for byte its own run's) and the state of torch's global
    generator that its own run would leave behind.
    """
    groups: dict[tuple, list[int]] = {}
    for index, job in enumerate(jobs):
        key = group_key(job) if batchable(job) else ("alone", index)
        groups.setdefault(key, []).append(index)
    trained: dict[int, Trained] = {}
    with training_threads():
        for indices in groups.values():
            members = [jobs[i] for i in indices]
            if len(members) > 1 and products_agree(members):
                trained |= dict(zip(indices, _train_group(members), strict=True))
            else:
                trained |= {i: _alone(jobs[i]) for i in indices}
    return [trained[i] for i in range(len(jobs))]
