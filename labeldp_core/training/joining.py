"""A training that may join others: what it asks for, and the batch it can join, if any.

:func:`labeldp_core.training.train_classifier` asks :func:`current_batch` first: inside a grid
computed together (:mod:`labeldp_core.experiments.together`) the batch trains it beside the
grid's other points and hands back its outcome; anywhere else there is no batch and the training
runs alone, as it always did. No torch here: importing this costs nothing.
"""

import contextvars
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from labeldp_core.training.settings import ProgressFn, TrainSettings

if TYPE_CHECKING:
    from labeldp_core.training.settings import TrainOutcome

__all__ = ["BATCHED_MODELS", "Batch", "ClassifierJob", "current_batch", "joined"]

#: The models whose trainings :mod:`labeldp_core.training.batched` batches exactly.
BATCHED_MODELS = frozenset({"logistic", "mlp"})


@dataclass(frozen=True, eq=False)
class ClassifierJob:
    """The arguments of one :func:`~labeldp_core.training.train_classifier` call."""

    x_train: np.ndarray
    targets: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    num_classes: int
    settings: TrainSettings
    seed: int
    progress: ProgressFn | None = None


class Batch(Protocol):
    """Trains the jobs it accepts beside others; :meth:`train` returns None for the others."""

    def train(self, job: ClassifierJob) -> "TrainOutcome | None":
        """``job``'s outcome, byte for byte its own run's, or None: train it alone."""


_BATCH: contextvars.ContextVar[Batch | None] = contextvars.ContextVar("labeldp_batch", default=None)


def current_batch() -> Batch | None:
    """The batch the trainings of this thread join, or None."""
    return _BATCH.get()


def joined(batch: Batch) -> None:
    """Make ``batch`` the one this thread's trainings join (a point's thread, at its start)."""
    _BATCH.set(batch)
