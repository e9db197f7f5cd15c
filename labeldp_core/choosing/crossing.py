"""Where a curve computed at a few epsilons first reaches a target, read on log ε.

A curve is known only at its computed epsilons; between two of them it is read off the straight
line on log ε (the scale of every chart here), and outside them not at all. So the smallest ε
that reaches a target is the first crossing of that line, and "not reached" means not up to the
largest computed ε: never a guess beyond the computed range.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = ["Crossing", "first_crossing", "value_at"]


@dataclass(frozen=True)
class Crossing:
    """The smallest ε whose line reaches the target, and the computed epsilons around it.

    ``below`` is None when the first computed ε already reaches it (nothing smaller is known);
    else the line crosses between ``below`` and ``above``, the first computed ε that reaches it.
    """

    epsilon: float
    below: float | None
    above: float

    @property
    def interpolated(self) -> bool:
        """Whether ``epsilon`` lies strictly between two computed epsilons (not computed)."""
        return self.below is not None and self.epsilon != self.above


def _checked(epsilons: Sequence[float], values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    eps, vals = np.asarray(epsilons, float), np.asarray(values, float)
    if eps.ndim != 1 or eps.shape != vals.shape or eps.size == 0:
        raise InvalidInputError("a curve needs one value per computed epsilon, at least one")
    if not (np.all(eps > 0) and np.all(np.diff(eps) > 0) and np.all(np.isfinite(vals))):
        raise InvalidInputError("a curve's epsilons must be positive, ascending; values finite")
    return eps, vals


def first_crossing(
    epsilons: Sequence[float], values: Sequence[float], target: float
) -> Crossing | None:
    """The smallest ε in the computed range where the line through the points is ≥ ``target``.

    ``values`` are "higher is better" (negate an MSE). None when no point reaches the target:
    the line between two points never rises above both.

    >>> first_crossing([1.0, 4.0], [0.5, 0.9], 0.7)
    Crossing(epsilon=2.0, below=1.0, above=4.0)
    >>> first_crossing([1.0, 4.0], [0.5, 0.9], 0.95) is None
    True
    """
    eps, vals = _checked(epsilons, values)
    if vals[0] >= target:
        return Crossing(float(eps[0]), None, float(eps[0]))
    for i in range(1, eps.size):
        if vals[i] < target:
            continue
        share = (target - vals[i - 1]) / (vals[i] - vals[i - 1])  # in (0, 1]: vals[i-1] < target
        if share >= 1:
            return Crossing(float(eps[i]), float(eps[i - 1]), float(eps[i]))
        log_eps = math.log(eps[i - 1]) + share * (math.log(eps[i]) - math.log(eps[i - 1]))
        return Crossing(float(f"{math.exp(log_eps):.12g}"), float(eps[i - 1]), float(eps[i]))
    return None


def value_at(epsilons: Sequence[float], values: Sequence[float], epsilon: float) -> float:
    """The line through the points (on log ε) at ``epsilon``, inside the computed range only.

    >>> value_at([1.0, 4.0], [0.5, 0.9], 2.0)
    0.7
    """
    eps, vals = _checked(epsilons, values)
    if not eps[0] * (1 - 1e-12) <= epsilon <= eps[-1] * (1 + 1e-12):
        raise InvalidInputError(
            f"ε = {epsilon:g} is outside the computed range {eps[0]:g}..{eps[-1]:g}: no guess"
        )
    return round(float(np.interp(math.log(epsilon), np.log(eps), vals)), 12)
