"""What the label-level audit cases share: the classes, the label pair, a control's overspending.

Each family's audit cases (in its folder's ``audit.py``) call the family's own release function on
``trials`` copies of one of two neighbouring inputs and reduce every output to a score. Where the
privacy loss has a closed form the score is the log-likelihood ratio (up to a positive factor), so
thresholding it gives the most powerful events (Neyman-Pearson); the tight cases then reach their
claim exactly on the event where the loss is largest. Scores are rounded to
:data:`SCORE_DIGITS` decimals so that outputs on that event, equal in exact arithmetic, land on
one value. Controls are the real functions called the wrong way: noise scaled for the wrong
sensitivity, or a step run at more than the budget it reports.
"""

from collections.abc import Callable

import numpy as np

from labeldp_core.base.validation import MAX_EPSILON, check_epsilon
from labeldp_core.release_audit.engine import AuditCase

__all__ = ["AUDIT_CLASSES", "LABEL_PAIR", "SCORE_DIGITS", "Release", "labels_case", "overspent"]

AUDIT_CLASSES = 10
SCORE_DIGITS = 9
LABEL_PAIR = "one label: 0 vs 1 (replace-one)"

Release = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def overspent(epsilon: float, factor: float) -> float:
    """A control's real budget, ``factor`` times its claim (capped where epsilon is accepted)."""
    return min(factor * check_epsilon(epsilon), MAX_EPSILON)


def labels_case(
    name: str,
    release: Release,
    claimed: float,
    neighbours: str = LABEL_PAIR,
    is_control: bool = False,
) -> AuditCase:
    """Neighbours: one label equal to 0 vs equal to 1; the score is 'released label is 0'."""

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        released = release(np.full(trials, which), rng)
        return (released == 0).astype(np.float64)

    return AuditCase(name, claimed, 0.0, neighbours, sample, is_control)
