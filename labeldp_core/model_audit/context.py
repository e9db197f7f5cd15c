"""A run's context whose training labels carry the canaries, and which reads the trained model.

A mechanism's runner reads its private labels from ``ctx.dataset`` and trains through
``ctx.train``, which hands the model trained on the whole training set to
:meth:`~labeldp_core.engine.context.RunContext.note_attack_model`; a runner whose released model
learns from other rows (PATE's student, on the public queries) hands it to
:meth:`~labeldp_core.engine.context.RunContext.note_released_model`. This context changes those
places only: the dataset's training labels have the canaries planted, and the noted model's
softmax on the canary rows is kept in ``notes``.
"""

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from labeldp_core import training
from labeldp_core.data import Dataset, load_dataset
from labeldp_core.engine.context import RunContext
from labeldp_core.model_audit.canaries import Canaries

if TYPE_CHECKING:
    from torch import nn

__all__ = ["PROBABILITIES", "CanaryContext"]

#: The note holding the softmax ``(N, K)`` on the canaries of the last model the run noted.
PROBABILITIES = "canary_probabilities"


@dataclass(frozen=True)
class CanaryContext(RunContext):
    """A :class:`RunContext` training on the canaries' planted labels and reading them back."""

    canaries: Canaries = field(kw_only=True)

    @cached_property
    def dataset(self) -> Dataset:
        """The run's dataset with every canary's training label replaced by its ``y'``."""
        data = load_dataset(self.config.dataset)
        return replace(data, y_train=self.canaries.plant(data.y_train))

    def note_attack_model(self, model: "nn.Module") -> None:
        """Keep the model's softmax on the canaries (and the engine's own note)."""
        super().note_attack_model(model)
        self._read_canaries(model)

    def note_released_model(self, model: "nn.Module") -> None:
        """Keep the released model's softmax on the canaries (PATE's student)."""
        super().note_released_model(model)
        self._read_canaries(model)

    def _read_canaries(self, model: "nn.Module") -> None:
        images = self.dataset.x_train[self.canaries.index]
        self.notes[PROBABILITIES] = training.predict_proba(model, images, self.train_settings)

    def canary_probabilities(self) -> np.ndarray | None:
        """The softmax on the canaries of the model the run released, or None if it noted none."""
        return self.notes.get(PROBABILITIES)
