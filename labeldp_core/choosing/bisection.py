"""Narrowing an answer by bisection on ε: compute (or read) the point between its two neighbours.

An interpolated answer is only as good as its two computed neighbours are close. Bisection
takes the geometric mean of them (three significant digits, so the points are readable and the
same for every target that passes that way), adds that point, reads the answer again, and stops
when the neighbours are within :data:`CLOSE` of each other, or when no point comes back. The
points it visits depend only on the grid and on the computed values, so reading a cache with the
same steps (``fetch`` that never computes) finds every point an earlier bisection computed.
"""

import math
from collections.abc import Callable

from labeldp_core.choosing.answer import answer
from labeldp_core.choosing.curves import Curve, CurvePoint
from labeldp_core.choosing.target import Target

__all__ = ["CLOSE", "Fetch", "bisect", "midpoint", "next_epsilon"]

#: An answer is close enough when its computed neighbours are within 10% of each other.
CLOSE = 1.1
#: The point at an ε, read or computed; None when it is not there (and is not computed).
Fetch = Callable[[float], CurvePoint | None]


def midpoint(low: float, high: float) -> float | None:
    """The geometric mean of ``low`` and ``high`` to three significant digits, if strictly inside.

    >>> midpoint(1.0, 2.0), midpoint(1.0, 1.001)
    (1.41, None)
    """
    middle = float(f"{math.sqrt(low * high):.3g}")
    return middle if low < middle < high else None


def next_epsilon(curve: Curve, target: Target, close: float = CLOSE) -> float | None:
    """The ε bisection computes next for ``curve``, or None when its answer needs no more."""
    found = answer(curve, target)
    if found.below is None or found.above is None or found.above <= close * found.below:
        return None
    return midpoint(found.below, found.above)


def bisect(curve: Curve, target: Target, fetch: Fetch, close: float = CLOSE) -> Curve:
    """``curve`` with the points bisection adds around its answer, while ``fetch`` gives them."""
    while (epsilon := next_epsilon(curve, target, close)) is not None:
        point = fetch(epsilon)
        if point is None:
            break
        curve = curve.with_point(point)
    return curve
