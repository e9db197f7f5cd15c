"""Narrowing an answer by bisection on ε: compute (or read) the point between its two neighbours.

An interpolated answer is only as good as its two computed neighbours are close. Where the
pages' grid has an ε between them (a curve computed coarsely, on a few of the grid's ε),
bisection takes the grid's ε nearest their geometric mean, so the point is one every page draws.
Between two neighbouring grid epsilons it takes their geometric mean (three significant digits,
so the points are readable and the same for every target that passes that way). It adds that
point, reads the answer again, and stops when the neighbours are within :data:`CLOSE` of each
other, or when no point comes back.

Every point bisection can compute is a node of one tree per pair of neighbouring grid epsilons
(the midpoint, then the midpoints of each half), and a node is computed only after its parent.
So :func:`read_tree` finds every point any earlier bisection cached by walking down from the
grid while the points are there, and every target reads the same curve: a higher target can
never get a smaller ε.
"""

import math
from collections.abc import Callable, Sequence

from labeldp_core.choosing.answer import answer
from labeldp_core.choosing.curves import Curve, CurvePoint
from labeldp_core.choosing.target import Target

__all__ = ["CLOSE", "Fetch", "bisect", "midpoint", "next_epsilon", "read_tree"]

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


def next_epsilon(
    curve: Curve, target: Target, close: float = CLOSE, grid: Sequence[float] = ()
) -> float | None:
    """The ε bisection computes next for ``curve``, or None when its answer needs no more.

    A ``grid`` ε between the answer's two computed neighbours comes first (the one nearest
    their geometric mean); the midpoint of the two only once none is left between them.
    """
    found = answer(curve, target)
    if found.below is None or found.above is None or found.above <= close * found.below:
        return None
    low, high = found.below, found.above
    inside = [e for e in grid if low < e < high]
    if inside:
        centre = (math.log(low) + math.log(high)) / 2
        return min(inside, key=lambda e: abs(math.log(e) - centre))
    return midpoint(low, high)


def bisect(
    curve: Curve, target: Target, fetch: Fetch, close: float = CLOSE, grid: Sequence[float] = ()
) -> Curve:
    """``curve`` with the points bisection adds around its answer, while ``fetch`` gives them.

    ``grid``: the pages' ε, taken first where one lies between the answer's neighbours.
    """
    while (epsilon := next_epsilon(curve, target, close, grid)) is not None:
        point = fetch(epsilon)
        if point is None:
            break
        curve = curve.with_point(point)
    return curve


def read_tree(curve: Curve, fetch: Fetch, close: float = CLOSE) -> Curve:
    """``curve`` with every point an earlier bisection left between its epsilons (by ``fetch``).

    A bracket no wider than ``close`` is never split by bisection, so it is not looked into.
    """
    brackets = list(zip(curve.epsilons[:-1], curve.epsilons[1:], strict=True))
    while brackets:
        low, high = brackets.pop()
        middle = midpoint(low, high) if high > close * low else None
        point = None if middle is None else fetch(middle)
        if point is not None:
            curve = curve.with_point(point)
            brackets += [(low, point.epsilon), (point.epsilon, high)]
    return curve
