"""PATE's ensemble members trained and voting: together where they can, each as it would alone.

What :func:`labeldp_core.training.ensemble.ensemble_votes` runs, in a module of its own so that
torch is imported when a first ensemble trains, not when the families are listed. Members on
the logistic model or the MLP with shards of one size train as one batched model (the step of
:mod:`labeldp_core.training.batched`, each member on its own shard), byte for byte as each
trains alone (``tests/training/test_ensemble.py``); the others train one after another.
"""

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import nn

from labeldp_core import training
from labeldp_core.base.threads import single_thread
from labeldp_core.training import batched
from labeldp_core.training.allocator import keep_freed_memory
from labeldp_core.training.joining import ClassifierJob
from labeldp_core.training.loop import _as_input, adam
from labeldp_core.training.settings import TrainSettings

__all__ = ["member_votes"]

#: Members trained together at most: 50 MLP teachers on MNIST keep about 180 MB of parameters,
#: gradients and Adam's moments.
_GROUP = 50


def member_votes(
    images: np.ndarray,
    labels: np.ndarray,
    shards: Sequence[np.ndarray],
    queries: np.ndarray,
    num_classes: int,
    settings: TrainSettings,
    seeds: Sequence[int],
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Every member's predicted class per query, member i trained with ``seeds[i]``.

    The arguments are :func:`~labeldp_core.training.ensemble.ensemble_votes`' (member i on
    ``shards[i]``). Torch's global generator is left as the last member's own run leaves it.
    """
    votes = np.empty((len(shards), queries.shape[0]), dtype=np.int16)
    done = 0

    def on_trained(members: int) -> None:
        nonlocal done
        done += members
        if progress is not None:
            progress(done, len(shards))

    # No test set: the members are scored together, on the queries, after training.
    jobs = [
        ClassifierJob(
            images[shard], labels[shard], images[:0], labels[:0], num_classes, settings, member
        )
        for shard, member in zip(shards, seeds, strict=True)
    ]
    states: dict[int, torch.Tensor] = {}
    with single_thread():
        for indices in _groups(jobs):
            for index, (model, state) in zip(
                indices, _train(jobs, indices, on_trained), strict=True
            ):
                votes[index] = training.predict_proba(model, queries, settings).argmax(axis=1)
                states[index] = state
    if states:  # torch's generator as the last member's own run leaves it, as before
        torch.set_rng_state(states[len(shards) - 1])
    return votes


def _groups(jobs: list[ClassifierJob]) -> list[list[int]]:
    """The members that train together: batchable ones of one shard size, at most _GROUP each.

    Every other member is a group of one, trained alone.
    """
    sizes: dict[int, list[int]] = {}
    alone = []
    for index, job in enumerate(jobs):
        if batched.batchable(job):
            sizes.setdefault(len(job.x_train), []).append(index)
        else:
            alone.append([index])
    together = [
        group[i : i + _GROUP] for group in sizes.values() for i in range(0, len(group), _GROUP)
    ]
    return sorted(together + alone)


def _train(
    jobs: list[ClassifierJob], indices: list[int], on_trained: Callable[[int], None]
) -> list[tuple[nn.Module, torch.Tensor]]:
    """The members ``indices`` trained, together if they can.

    Each with the state its own run leaves in torch's global generator.
    """
    members = [jobs[i] for i in indices]
    if len(members) > 1 and batched.products_agree(members):
        return _train_together(members, on_trained)
    trained = []
    for job in members:
        model = training.fit_classifier(
            job.x_train, job.targets, job.num_classes, job.settings, job.seed
        )
        trained.append((model, torch.get_rng_state()))
        on_trained(1)
    return trained


def _train_together(
    members: list[ClassifierJob], on_trained: Callable[[int], None]
) -> list[tuple[nn.Module, torch.Tensor]]:
    """Members of one shard size trained as one batched model, each on its own shard.

    The step of :mod:`labeldp_core.training.batched` (each member's seed, shuffler, dropout
    generator and Adam update its own), where each member gathers its batch from its own shard.
    """
    keep_freed_memory()
    settings, n = members[0].settings, len(members[0].x_train)
    inputs = torch.stack([_as_input(job.x_train, settings) for job in members])
    targets = torch.stack([torch.tensor(job.targets) for job in members])
    rows = torch.arange(len(members)).unsqueeze(1)
    models, masks, shufflers = batched.start_models(members)
    optimiser = adam(nn.ModuleList(models), settings.learning_rate)
    for _ in range(settings.epochs):
        orders = torch.stack([torch.randperm(n, generator=s) for s in shufflers])
        for start in range(0, n, settings.batch_size):
            batch = orders[:, start : start + settings.batch_size]
            batched.train_step(
                optimiser, models, masks, inputs[rows, batch], targets.gather(1, batch)
            )
    for model in models:
        model.eval()
    on_trained(len(members))
    return [(model, mask.get_state()) for model, mask in zip(models, masks, strict=True)]
