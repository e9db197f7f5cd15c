"""Training loops for the small models: in memory, seeded, hard or soft targets.

The types load at once; the loops (and torch with them) when first used, so that code that only
describes or looks up a training (the command line, a cached answer) never waits for torch.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from labeldp_core.training.settings import ProgressFn, TrainOutcome, TrainSettings

if TYPE_CHECKING:
    from labeldp_core.training.loop import (
        fit_classifier,
        predict_proba,
        predict_values,
        train_classifier,
        train_regressor,
    )

__all__ = [
    "ProgressFn",
    "TrainOutcome",
    "TrainSettings",
    "fit_classifier",
    "predict_proba",
    "predict_values",
    "train_classifier",
    "train_regressor",
]

_LOOPS = frozenset(__all__) - {"ProgressFn", "TrainOutcome", "TrainSettings"}


def __getattr__(name: str) -> object:
    if name in _LOOPS:
        return getattr(import_module("labeldp_core.training.loop"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
