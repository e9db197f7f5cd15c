"""Training loops for the small models: in memory, seeded, hard or soft targets."""

from labeldp_core.training.loop import (
    ProgressFn,
    TrainOutcome,
    TrainSettings,
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
