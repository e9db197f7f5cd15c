"""Train one classifier per disjoint shard (PATE's teachers) and collect their votes on queries.

Teachers are trained one after another with the project's in-memory loop, which on this 2-core
CPU beat ensembles batched with ``torch.func.vmap`` and ``torch.compile`` (issue 5). They train on
one thread: their models and batches are so small that splitting each operation over two threads
gains little, and when the cores are busy with other work it loses badly (measured: an MLP
teacher took 0.7 s on one thread and 10 s on two, on the shared machine; see
``bench/pate_speed.py``).
"""

from collections.abc import Callable, Sequence

import numpy as np

from labeldp_core import training
from labeldp_core.base.threads import single_thread
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
        progress: called with (members done, members in all) after each member.

    Returns:
        An int16 ``(members, q)`` array of votes.
    """
    votes = np.empty((len(shards), queries.shape[0]), dtype=np.int16)
    with single_thread():
        for index, shard in enumerate(shards):
            model = training.fit_classifier(
                images[shard], labels[shard], num_classes, settings, member_seed(seed, index)
            )
            votes[index] = training.predict_proba(model, queries, settings).argmax(axis=1)
            if progress is not None:
                progress(index + 1, len(shards))
    return votes
