"""A run's context whose training labels carry the canaries, and which reads the trained model.

A mechanism's runner reads its private labels from ``ctx.dataset`` and trains through
``ctx.train``, which hands the model trained on the whole training set to
:meth:`~labeldp_core.engine.context.RunContext.note_attack_model`; a runner whose released model
learns from other rows (PATE's student, on the public queries) hands it to
:meth:`~labeldp_core.engine.context.RunContext.note_released_model`; a runner whose released
classifier is no network (the DP prototypes' cosine similarities) hands its per-class scores to
:meth:`~labeldp_core.engine.context.RunContext.note_released_scores`. This context changes those
places only: the dataset's training labels have the canaries planted, and the noted model's
softmax (or scores) on the canary rows is kept in ``notes``. The attack only compares two classes'
scores, so any monotone map of them (a softmax of cosine similarities) guesses the same.
"""

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core import training
from labeldp_core.data import Dataset, load_dataset
from labeldp_core.engine.context import RunContext, ScoresFn
from labeldp_core.model_audit.canaries import Canaries

if TYPE_CHECKING:
    from torch import nn

__all__ = ["CLEAN_SCORES", "PROBABILITIES", "CanaryContext"]

#: The note holding the softmax ``(N, K)`` on the canaries of the last model the run noted.
PROBABILITIES = "canary_probabilities"
#: The note holding the scores ``(N, K)`` on the canaries of the run's clean reference classifier.
CLEAN_SCORES = "canary_clean_scores"


@dataclass(frozen=True)
class CanaryContext(RunContext):
    """A :class:`RunContext` training on the canaries' planted labels and reading them back."""

    canaries: Canaries = field(kw_only=True)

    @cached_property
    def dataset(self) -> Dataset:
        """The run's dataset with each canary's label set to ``y'`` (its input, if crafted)."""
        data = load_dataset(self.config.dataset)
        return replace(
            data,
            x_train=self.canaries.place(data.x_train),
            y_train=self.canaries.plant(data.y_train),
        )

    def note_attack_model(self, model: "nn.Module") -> None:
        """Keep the model's softmax on the canaries (and the engine's own note)."""
        super().note_attack_model(model)
        self._read_canaries(model)

    def note_released_model(self, model: "nn.Module") -> None:
        """Keep the released model's softmax on the canaries (PATE's student)."""
        super().note_released_model(model)
        self._read_canaries(model)

    def note_released_scores(self, released: ScoresFn, clean: ScoresFn) -> None:
        """Keep the released and the clean classifier's scores on the canaries (DP prototypes)."""
        super().note_released_scores(released, clean)
        self.notes[PROBABILITIES] = np.asarray(released(self.canaries.index))
        self.notes[CLEAN_SCORES] = np.asarray(clean(self.canaries.index))

    def _read_canaries(self, model: "nn.Module") -> None:
        images = self.dataset.x_train[self.canaries.index]
        self.notes[PROBABILITIES] = training.predict_proba(model, images, self.train_settings)

    def canary_probabilities(self, *, clean: bool = False) -> np.ndarray | None:
        """The released classifier's scores on the canaries, or None if the run noted none.

        ``clean``: the scores of the run's clean reference instead (noted with the released
        scores by a run whose classifier is no trained network).
        """
        return self.notes.get(CLEAN_SCORES if clean else PROBABILITIES)
