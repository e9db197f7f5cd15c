"""The tail every label release shares: train on the released labels, score, report the flips.

Randomized response, RR-with-prior and LP-2ST each end the same way: a model learns from the
labels released, and the run reports its test score, how many labels were flipped, the confusion
of true against released labels (a diagnostic) and the test curve.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from labeldp_core.engine.context import RunContext, label_statistics
from labeldp_core.engine.spec import Outcome

__all__ = ["released_labels_outcome"]


def released_labels_outcome(
    ctx: RunContext,
    released: np.ndarray,
    epsilon_spent: float,
    details: Mapping[str, Any],
    diagnostics: Sequence[str],
    *,
    message: str = "training on released labels",
    start: float = 0.0,
) -> Outcome:
    """Train on ``released`` (progress from ``start``), and the run's outcome with ``details``.

    ``details`` gets the confusion of true against released labels and the test curve added;
    ``diagnostics`` names the details that read the true labels.
    """
    data = ctx.dataset
    stats = label_statistics(data.y_train, released, data.num_classes)
    trained = ctx.train(released, start=start, message=message)
    return Outcome(
        epsilon_spent=epsilon_spent,
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=stats["flip_rate"],
        label_accuracy=stats["label_accuracy"],
        details={
            **details,
            "confusion": stats["confusion"],
            "test_curve": list(trained.test_curve),
        },
        diagnostics=tuple(diagnostics),
    )
