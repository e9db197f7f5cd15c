"""Train one classifier per disjoint shard (PATE's teachers) and collect their votes on queries.

Teachers train on one thread: their models and batches are so small that splitting each
operation over two threads gains little, and when the cores are busy with other work it loses
badly (measured: an MLP teacher took 0.7 s on one thread and 10 s on two, on the shared machine;
see ``bench/pate_speed.py``). ``torch.func.vmap`` and ``torch.compile`` ensembles lost to the
project's in-memory loop on this 2-core CPU (issue 5). Teachers on the logistic model or the MLP
with shards of one size train together as one batched model
(:mod:`labeldp_core.training.batched`'s step, each teacher on its own shard), byte for byte as
each trains alone (``tests/training/test_ensemble.py``): digits' 50 MLP teachers, 200 steps of
24 examples each, took about half the CPU together (9.1-10.5 s alone, 4.2-4.7 s together, at
load 2). The others train one after another. The training itself is
:mod:`labeldp_core.training.ensemble_members`, loaded (with torch) when a first ensemble trains:
listing the families reads this module without importing torch.
"""

from collections.abc import Callable, Sequence
from importlib import import_module

import numpy as np

from labeldp_core.training.settings import TrainSettings

__all__ = ["ensemble_votes", "member_seed"]


def member_seed(seed: int, index: int) -> int:
    """A distinct, reproducible training seed for ensemble member ``index`` of run ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def ensemble_votes(
    images: np.ndarray,
    labels: np.ndarray,
    shards: Sequence[np.ndarray],
    queries: np.ndarray,
    num_classes: int,
    settings: TrainSettings,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Train a classifier on each shard and return every member's predicted class per query.

    Args:
        images: training images ``(n, C, H, W)``.
        labels: training labels ``(n,)``.
        shards: index arrays into ``images``, one per ensemble member.
        queries: images ``(q, C, H, W)`` every member labels.
        num_classes: K.
        settings: model and optimiser settings shared by every member.
        seed: the run's seed; member i trains with :func:`member_seed` (seed, i).
        progress: called with (members done, members in all) after each member trained alone
            and after each group trained together.

    Returns:
        An int16 ``(members, q)`` array of votes.
    """
    members = import_module("labeldp_core.training.ensemble_members")
    seeds = [member_seed(seed, index) for index in range(len(shards))]
    return members.member_votes(
        images, labels, shards, queries, num_classes, settings, seeds, progress
    )
