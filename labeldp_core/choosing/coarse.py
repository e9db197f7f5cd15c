"""The coarse search: from no point to an answer on the grid's smallest, middle and largest ε.

A mechanism without an answer computes its grid's middle ε first (every seed); reached there, it
goes down to the smallest, not reached, up to the largest. After at most two points it is
settled: the target is reached between two computed ε (bisection then narrows it), already at
the grid's smallest ε, or not up to its largest. Every point is on the grid the pages draw, so a
later read (and Compare) finds it; cached points are used, only what is missing is computed.
"""

import math
from collections.abc import Callable, Sequence

from labeldp_core.choosing.answer import answer
from labeldp_core.choosing.curves import Curve
from labeldp_core.choosing.target import Target

__all__ = ["coarse_grid", "next_coarse", "trainings_left"]

#: How many runs are missing at an ε (one per seed not cached).
Missing = Callable[[float], int]


def coarse_grid(grid: Sequence[float]) -> tuple[float, ...]:
    """The smallest, the middle (nearest the geometric mean, on log ε) and the largest ε.

    >>> coarse_grid((0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0))
    (0.1, 1.0, 8.0)
    """
    low, high = min(grid), max(grid)
    centre = (math.log(low) + math.log(high)) / 2
    middle = min(sorted(grid), key=lambda e: abs(math.log(e) - centre))
    return tuple(sorted({low, middle, high}))


def _middle(grid: Sequence[float]) -> float:
    coarse = coarse_grid(grid)
    return coarse[len(coarse) // 2]


def _ahead(curve: Curve, target: Target, grid: Sequence[float]) -> tuple[float, ...]:
    """The coarse ε still to visit, in order: down from a reached smallest point, up otherwise.

    Empty when ``curve`` is settled: reached between two computed ε, reached at the grid's
    smallest ε, or not reached at its largest.
    """
    found = answer(curve, target)
    if found.reached and found.below is not None:
        return ()
    if found.reached:
        return tuple(sorted((e for e in coarse_grid(grid) if e < curve.epsilons[0]), reverse=True))
    return tuple(e for e in coarse_grid(grid) if e > curve.epsilons[-1])


def next_coarse(curve: Curve | None, target: Target, grid: Sequence[float]) -> float | None:
    """The ε the coarse search computes next for ``curve``; None once it is settled."""
    if curve is None:
        return _middle(grid)
    ahead = _ahead(curve, target, grid)
    return ahead[0] if ahead else None


def trainings_left(
    curve: Curve | None, target: Target, grid: Sequence[float], missing: Missing
) -> int:
    """The most runs the coarse search may still need to settle ``curve`` (0: settled).

    The worst case over what the points still to compute will show: every coarse ε ahead in the
    direction the search goes, or, with no point yet, the middle and the costlier of the ends.
    """
    if curve is None:
        middle = _middle(grid)
        ends = [missing(e) for e in coarse_grid(grid) if e != middle]
        return missing(middle) + max(ends, default=0)
    return sum(missing(e) for e in _ahead(curve, target, grid))
