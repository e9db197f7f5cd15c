"""What a mechanism's runner gets to work with: data, randomness, training and the cache."""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from labeldp_core import training
from labeldp_core.cache import ResultCache
from labeldp_core.data import Dataset, load_dataset
from labeldp_core.engine.config import RunConfig, Task
from labeldp_core.engine.consensus import (
    CONSENSUS_NOTE,
    consensus_asked,
    consensus_figures,
    retrain_on_consensus,
)
from labeldp_core.engine.progress import Progress, within
from labeldp_core.training import ProgressFn, TrainOutcome, TrainSettings

if TYPE_CHECKING:
    from torch import nn

__all__ = ["RunContext", "label_statistics"]

#: Training rows -> their ``(n, K)`` per-class scores under a released classifier.
ScoresFn = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class RunContext:
    """Shared services for one run; the runner reads ``config`` and calls these."""

    config: RunConfig
    task: Task
    cache: ResultCache
    progress: Progress
    #: What the run noticed on the way, for the engine (e.g. the label-inference attack figures).
    notes: dict[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def dataset(self) -> Dataset:
        """The run's dataset (loaded once per process)."""
        return load_dataset(self.config.dataset)

    @cached_property
    def rng(self) -> np.random.Generator:
        """The mechanism's randomness, seeded by the run's seed (separate from training's)."""
        return np.random.default_rng([self.config.seed, 0x1ABE1])

    @property
    def train_settings(self) -> TrainSettings:
        """Model and optimiser settings of this run."""
        return TrainSettings(
            model=self.config.setting("model"),
            epochs=int(self.config.epochs or 1),
            batch_size=self.config.setting("batch_size"),
            learning_rate=self.config.setting("learning_rate"),
        )

    def train(
        self,
        targets: np.ndarray,
        *,
        images: np.ndarray | None = None,
        start: float = 0.0,
        end: float = 1.0,
        message: str = "training",
        consensus: bool = True,
    ) -> TrainOutcome:
        """Train the run's model on ``targets`` (labels, soft labels or values) and score it.

        ``images`` defaults to the training images; progress is reported on ``start..end``. A
        classifier trained on the whole private training set is the one the label-inference attack
        of the run looks at (see :meth:`note_attack_model`). When the run's ``consensus`` setting
        is 1, that classifier is retrained on its consensus set
        (:mod:`labeldp_core.engine.consensus`, post-processing); ``consensus=False`` opts out.
        """
        data = self.dataset
        images = data.x_train if images is None else images
        retrain = (
            consensus
            and self.task == "classification"
            and images is data.x_train
            and consensus_asked(self.config)
        )
        report = within(self.progress, start, (start + end) / 2 if retrain else end)

        def on_epoch(done: int, total: int) -> None:
            report(done / total, f"{message}: epoch {done}/{total}")

        if self.task == "regression":
            return self._regress(images, targets, on_epoch)
        outcome = training.train_classifier(
            images,
            targets,
            data.x_test,
            data.y_test,
            data.num_classes,
            self.train_settings,
            self.config.seed,
            on_epoch,
        )
        if retrain:
            outcome = self._retrain_on_consensus(targets, outcome, (start + end) / 2, end)
        if images is data.x_train:
            self.note_attack_model(outcome.model)
        return outcome

    def _retrain_on_consensus(
        self, targets: np.ndarray, first: TrainOutcome, start: float, end: float
    ) -> TrainOutcome:
        """The model retrained on ``first``'s consensus set; its figures go to the notes."""
        report = within(self.progress, start, end)

        def on_epoch(done: int, total: int) -> None:
            report(done / total, f"retraining on the consensus set: epoch {done}/{total}")

        found = retrain_on_consensus(self, targets, first, on_epoch)
        self.notes[CONSENSUS_NOTE] = consensus_figures(found, targets, self.dataset.y_train)
        return found.final

    def _regress(
        self, images: np.ndarray, values: np.ndarray, on_epoch: ProgressFn
    ) -> TrainOutcome:
        """Train a regression head on ``values`` in the label's units; the test MSE in them too.

        The head learns grid positions ``(value - offset) / step`` (0..K-1 on every dataset), so
        a table's prices in the thousands train like a rating from 0 to 9; the MSE is scaled
        back by step². On the bundled datasets the positions are the values themselves.
        """
        data = self.dataset
        offset, step = data.value_offset, data.value_step
        positions = (np.asarray(values, dtype=np.float64) - offset) / step
        outcome = training.train_regressor(
            images,
            positions,
            data.x_test,
            data.y_test.astype(np.float64),
            self.train_settings,
            self.config.seed,
            on_epoch,
        )
        return TrainOutcome(outcome.model, tuple(mse * step**2 for mse in outcome.test_curve))

    def _accuracies(self, model: "nn.Module") -> dict[str, float]:
        data, settings = self.dataset, self.train_settings
        on_train = training.predict_proba(model, data.x_train, settings).argmax(axis=1)
        on_test = training.predict_proba(model, data.x_test, settings).argmax(axis=1)
        return {
            "train_accuracy": float(np.mean(on_train == data.y_train)),
            "test_accuracy": float(np.mean(on_test == data.y_test)),
        }

    def note_attack_model(self, model: "nn.Module") -> None:
        """Record how often ``model`` predicts the true label of the private training examples.

        An adversary who guesses a training example's label from the released model's prediction
        succeeds this often; compared with the same model on unseen test examples, the gap is
        what the model learned about those particular labels.
        """
        self.notes["attack"] = self._accuracies(model)

    def note_released_model(self, model: "nn.Module") -> None:
        """Hand over the classifier the run releases when :meth:`train` did not train it.

        PATE's student learns from the public queries, not from every training example, so it
        is no label-inference model of the run and an ordinary run keeps nothing here. The
        canary audit's context (:mod:`labeldp_core.model_audit.context`) reads it on the canaries.
        """

    def note_released_scores(self, released: ScoresFn, clean: ScoresFn) -> None:
        """Hand over the per-class scores of a released classifier that is no trained network.

        DP prototypes classify by cosine similarity to released class prototypes: ``released``
        maps training rows to their ``(n, K)`` scores under the released prototypes, ``clean``
        under the same prototypes computed without privacy (the run's clean reference). An
        ordinary run keeps nothing; the canary audit's context reads both on the canaries.
        """

    def _baseline_payload(self) -> dict[str, object]:
        settings = self.train_settings
        return {
            "dataset": self.config.dataset,
            "task": self.task,
            "seed": self.config.seed,
            "model": settings.model,
            "epochs": settings.epochs,
            "batch_size": settings.batch_size,
            "learning_rate": settings.learning_rate,
        }

    def _baseline_key(self) -> str:
        """The key of the clean baseline: its payload, computed by this module's code."""
        return self.cache.key("baseline", self._baseline_payload(), __name__)

    def baseline_is_cached(self) -> bool:
        """Whether :meth:`baseline_score` will answer from the cache."""
        return self.stored_baseline() is not None

    def stored_baseline(self) -> dict[str, Any] | None:
        """The clean baseline's cached record (see :meth:`baseline`), or None: nothing trains."""
        return self.cache.get_json(self._baseline_key())

    def _clean_record(self, rows: np.ndarray | None, message: str) -> dict[str, Any]:
        """Train the run's model on the clean labels of training ``rows`` (None: all), score it."""
        data = self.dataset
        targets = data.y_train if rows is None else data.y_train[rows]
        if self.task == "regression":
            targets = data.class_values[targets]
        images = None if rows is None else data.x_train[rows]
        outcome = self.train(targets, images=images, message=message, consensus=False)
        record = {"score": outcome.final, "curve": list(outcome.test_curve)}
        if rows is None and "attack" in self.notes:
            record["train_accuracy"] = self.notes["attack"]["train_accuracy"]
        return record

    def baseline(self) -> dict[str, Any]:
        """The same model trained on clean labels, cached per setting.

        Holds its test ``score`` (accuracy, or MSE for regression) and ``curve``, and for
        classification its accuracy on the training examples (``train_accuracy``).
        """
        return self.cache.json_or_compute(
            "baseline",
            self._baseline_payload(),
            lambda: self._clean_record(None, "clean baseline"),
            required=["score", "curve"],
            by=__name__,
        )

    def baseline_score(self) -> float:
        """Test accuracy (or MSE) of the same model trained on clean labels; cached per setting."""
        return float(self.baseline()["score"])

    def subset_baseline_score(self, rows: np.ndarray, subset: dict[str, object]) -> float:
        """Test score of the same model trained on the clean labels of training ``rows`` only.

        For runs that train on part of the training split, so that their clean reference sees
        the same examples. ``subset`` names the rows (how they were drawn) in the cache key.
        """
        stored = self.cache.json_or_compute(
            "baseline",
            self._baseline_payload() | {"subset": subset},
            lambda: self._clean_record(rows, "clean baseline, same examples"),
            required=["score", "curve"],
            by=__name__,
        )
        return float(stored["score"])


def label_statistics(
    true_labels: np.ndarray, released: np.ndarray, num_classes: int
) -> dict[str, float | list[list[int]]]:
    """Flip rate, label accuracy and the K x K matrix counting (true, released) pairs."""
    same = float(np.mean(true_labels == released))
    pairs = np.bincount(true_labels * num_classes + released, minlength=num_classes * num_classes)
    return {
        "flip_rate": 1.0 - same,
        "label_accuracy": same,
        "confusion": pairs.reshape(num_classes, num_classes).tolist(),
    }
