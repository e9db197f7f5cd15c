"""Self-training: a classifier grows its training set with its own confident predictions.

A model first trains on the labelled examples alone; it then labels the unlabelled pool, keeps
the predictions whose softmax probability reaches ``confidence`` (the confidence threshold of
Sohn et al. 2020, FixMatch, arXiv 2001.07685, applied to Lee 2013's pseudo-labels, "Pseudo-Label:
The Simple and Efficient Semi-Supervised Learning Method for Deep Neural Networks", ICML
workshop), and a fresh model trains on the labelled examples plus those pseudo-labels; this
repeats for ``rounds`` rounds. It reads no label of the pool: only its images and the model's
own predictions, so when the labelled examples are a DP release the result is post-processing.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from labeldp_core import training
from labeldp_core.training.settings import ProgressFn, TrainOutcome, TrainSettings

__all__ = ["SelfTraining", "TrainFn", "self_train"]

#: ``train(images, labels, progress)``: one model trained from scratch on hard labels.
TrainFn = Callable[[np.ndarray, np.ndarray, ProgressFn | None], TrainOutcome]


@dataclass(frozen=True)
class SelfTraining:
    """The supervised model, the last round's model and the pseudo-labels each round added."""

    supervised: TrainOutcome
    final: TrainOutcome
    pseudo_labelled: tuple[int, ...]


def _confident(
    outcome: TrainOutcome, pool: np.ndarray, settings: TrainSettings, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Indices into ``pool`` whose top probability reaches ``confidence``, and their labels."""
    if len(pool) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    probabilities = training.predict_proba(outcome.model, pool, settings)
    keep = np.flatnonzero(probabilities.max(axis=1) >= confidence)
    return keep, probabilities[keep].argmax(axis=1)


def self_train(
    train: TrainFn,
    images: np.ndarray,
    labels: np.ndarray,
    pool: np.ndarray,
    settings: TrainSettings,
    rounds: int,
    confidence: float,
    progress: Callable[[float, str], None] | None = None,
) -> SelfTraining:
    """Train on ``(images, labels)``, then ``rounds`` times on them plus confident pseudo-labels.

    Args:
        train: trains one model from scratch, e.g. :func:`~labeldp_core.training.train_classifier`
            bound to the test set and seed.
        images: the labelled examples' images (for PATE, the answered queries).
        labels: their hard labels (for PATE, the noisy answers).
        pool: unlabelled images ``(m, C, H, W)``; no label of theirs is ever read.
        settings: the settings ``train`` uses (for predicting on the pool).
        rounds: self-training rounds after the supervised model; 0 returns the supervised model.
        confidence: the smallest top softmax probability that makes a pseudo-label.
        progress: ``progress(fraction, message)`` over the whole of the rounds.
    """
    total = rounds + 1

    def part(round_index: int, message: str) -> ProgressFn | None:
        if progress is None:
            return None
        return lambda done, epochs: progress(
            (round_index + done / epochs) / total, f"{message}: epoch {done}/{epochs}"
        )

    supervised = train(images, labels, part(0, "training the student"))
    model, added = supervised, []
    for round_index in range(1, total):
        keep, pseudo = _confident(model, pool, settings, confidence)
        added.append(int(keep.size))
        model = train(
            np.concatenate([images, pool[keep]]),
            np.concatenate([labels, pseudo]),
            part(round_index, f"self-training round {round_index}/{rounds}"),
        )
    return SelfTraining(supervised, model, tuple(added))
