"""A mechanism's computed curve: its score over seeds at each epsilon where every seed is cached.

The curve the choice reads is made of computed points only; an epsilon where a seed is missing
is left out (its mean would be over other seeds than its neighbours').
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from labeldp_core.engine.spec import RunResult

__all__ = ["Curve", "CurvePoint", "curve_point"]


@dataclass(frozen=True)
class CurvePoint:
    """One computed epsilon: its score on each seed, the epsilon spent and the clean score."""

    epsilon: float
    spent: float
    delta: float
    scores: tuple[float, ...]
    baseline: float

    @property
    def mean(self) -> float:
        """The mean score over seeds."""
        return float(np.mean(self.scores))


def curve_point(results: Sequence[RunResult]) -> CurvePoint:
    """The point of one epsilon's results (one per seed): spent and delta the most over seeds."""
    return CurvePoint(
        epsilon=results[0].epsilon,
        spent=max(r.epsilon_spent for r in results),
        delta=max(r.delta for r in results),
        scores=tuple(float(r.score) for r in results),
        baseline=float(np.mean([r.baseline_score for r in results])),
    )


@dataclass(frozen=True)
class Curve:
    """A mechanism's computed points, ascending in epsilon, and what its epsilon protects."""

    mechanism: str
    privacy_unit: str
    metric: str
    points: tuple[CurvePoint, ...]

    @property
    def epsilons(self) -> list[float]:
        """The computed epsilons, ascending."""
        return [p.epsilon for p in self.points]

    @property
    def baseline(self) -> float:
        """The clean-label score (mean over the points' seeds)."""
        return float(np.mean([p.baseline for p in self.points]))

    def with_point(self, point: CurvePoint) -> "Curve":
        """The curve with ``point`` added (replacing one at the same epsilon)."""
        kept = [p for p in self.points if p.epsilon != point.epsilon]
        return replace(self, points=tuple(sorted([*kept, point], key=lambda p: p.epsilon)))
