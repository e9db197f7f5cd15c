"""Consensus retraining: train again on the examples where the model agrees with its labels.

Das et al. (ICML 2025, "Retraining with Predicted Hard Labels Provably Increases Model
Accuracy", arXiv 2406.11206): a model trained on noisy labels often predicts the true label of
a training example whose released label was flipped, since it learns from the many examples
around it. Consensus retraining trains the model on the released labels, predicts the training
set, keeps the examples where the prediction agrees with the released label (the *consensus
set*) and trains the model again, from scratch, on those examples and their released labels.

It reads only the released labels (or soft targets), the images and the model's own
predictions, so it is post-processing of the release: the run's epsilon is unchanged. The
consensus set's size reads no true label either; its label accuracy does, so it is a diagnostic.

Applied by :meth:`~labeldp_core.engine.context.RunContext.train` to the final model of every
mechanism that declares :data:`CONSENSUS_SETTING` as ``consensus`` (the classifiers trained on
released labels of every training example); the engine adds :func:`consensus_details` to the
run's details.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from labeldp_core import training
from labeldp_core.engine.config import RunConfig, Setting
from labeldp_core.training import ProgressFn, TrainOutcome

if TYPE_CHECKING:
    from labeldp_core.engine.context import RunContext

__all__ = [
    "CONSENSUS_DIAGNOSTICS",
    "CONSENSUS_NOTE",
    "CONSENSUS_PRIVACY",
    "CONSENSUS_SETTING",
    "Consensus",
    "agreement",
    "consensus_asked",
    "consensus_details",
    "consensus_figures",
    "retrain_on_consensus",
]

#: The ``consensus`` setting a mechanism declares to offer consensus retraining.
CONSENSUS_SETTING = Setting(
    0,
    "1: consensus retraining (Das et al. 2025): train on the released labels, predict the "
    "training set, train again on the examples whose prediction agrees with their released "
    "label; post-processing of the release, so epsilon is unchanged. 0: train once",
    minimum=0,
    maximum=1,
)
#: The key of the run's notes (and details) holding the consensus figures.
CONSENSUS_NOTE = "consensus"
#: The consensus figures that read the true labels: diagnostics, never part of the release.
CONSENSUS_DIAGNOSTICS = (
    "details.consensus.label_accuracy",
    "details.consensus.excluded_label_accuracy",
    "details.consensus.correct_labels_kept",
)
#: Why consensus retraining costs no epsilon, said in the run's details and composition.
CONSENSUS_PRIVACY = (
    "consensus retraining reads only the released labels, the images and the model's own "
    "predictions: post-processing of the release, so epsilon_spent is unchanged"
)


@dataclass(frozen=True)
class Consensus:
    """Both trainings: the first on every released label, the retrained one, the set kept."""

    first: TrainOutcome
    final: TrainOutcome
    #: ``(n,)`` True where the first model's prediction agrees with the released label.
    kept: np.ndarray


def consensus_asked(config: RunConfig) -> bool:
    """Whether ``config`` asks for consensus retraining (its mechanism declares it, set to 1)."""
    return int(dict(config.settings).get("consensus", 0)) == 1


def agreement(predicted: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Where the predicted class agrees with the released target: the consensus set's mask.

    Args:
        predicted: ``(n,)`` the model's predicted class of each training example.
        targets: ``(n,)`` released hard labels, or ``(n, K)`` released soft targets; a soft
            target agrees when the predicted class is one of its largest coordinates (its
            argmax, ties included: a uniform row agrees with every prediction).

    Returns:
        ``(n,)`` booleans.
    """
    predicted = np.asarray(predicted)
    targets = np.asarray(targets)
    if targets.ndim == 1:
        return predicted == targets
    chosen = targets[np.arange(targets.shape[0]), predicted]
    return chosen >= targets.max(axis=1)


def retrain_on_consensus(
    ctx: "RunContext",
    targets: np.ndarray,
    first: TrainOutcome,
    on_epoch: ProgressFn | None = None,
) -> Consensus:
    """Predict the training set with ``first``, train again where it agrees with ``targets``.

    The second model trains from scratch (same model, settings and seed) on the consensus set's
    images and released targets. If the set is empty the first model is kept.

    Args:
        ctx: the run (its dataset's training images, its settings and seed).
        targets: what the first model trained on: released labels ``(n,)`` or soft ``(n, K)``.
        first: the model trained on every released target.
        on_epoch: progress of the second training.
    """
    data, settings = ctx.dataset, ctx.train_settings
    predicted = training.predict_proba(first.model, data.x_train, settings).argmax(axis=1)
    kept = agreement(predicted, targets)
    if not kept.any():
        return Consensus(first, first, kept)
    final = training.train_classifier(
        data.x_train[kept],
        np.asarray(targets)[kept],
        data.x_test,
        data.y_test,
        data.num_classes,
        settings,
        ctx.config.seed,
        on_epoch,
    )
    return Consensus(first, final, kept)


def consensus_figures(found: Consensus, targets: np.ndarray, labels: np.ndarray) -> dict:
    """The figures of one consensus retraining, for the run's notes.

    ``size``, ``share`` and the first model's test figures read no true label; the label
    accuracies (listed in :data:`CONSENSUS_DIAGNOSTICS`) do.
    """
    targets = np.asarray(targets)
    rows = np.arange(labels.shape[0])
    # The mass the target puts on the true label: 0/1 for a hard label, as label_accuracy reads.
    mass = (targets == labels) if targets.ndim == 1 else targets[rows, labels]
    correct = agreement(labels, targets)  # the target's top class is the true label
    kept = found.kept
    return {
        "size": int(kept.sum()),
        "share": float(kept.mean()),
        "label_accuracy": float(mass[kept].mean()) if kept.any() else None,
        "excluded_label_accuracy": float(mass[~kept].mean()) if (~kept).any() else None,
        "correct_labels_kept": float(kept[correct].mean()) if correct.any() else None,
        "first_test_score": found.first.final,
        "first_test_curve": list(found.first.test_curve),
        "retrained": bool(kept.any()),
        "privacy": CONSENSUS_PRIVACY,
    }


def consensus_details(
    notes: Mapping[str, Any], details: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``details`` with the consensus figures of ``notes`` added, and their diagnostics' paths.

    The composition sentence gets :data:`CONSENSUS_PRIVACY` appended; without a consensus note
    ``details`` come back unchanged.
    """
    if CONSENSUS_NOTE not in notes:
        return dict(details), ()
    added = dict(details) | {CONSENSUS_NOTE: dict(notes[CONSENSUS_NOTE])}
    if isinstance(added.get("composition"), str):
        added["composition"] = f"{added['composition']}; {CONSENSUS_PRIVACY}"
    return added, CONSENSUS_DIAGNOSTICS
