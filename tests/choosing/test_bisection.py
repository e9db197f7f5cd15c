import math

import pytest

from labeldp_core.choosing import make_target
from labeldp_core.choosing.answer import answer
from labeldp_core.choosing.bisection import bisect, midpoint, read_tree
from labeldp_core.choosing.curves import Curve, CurvePoint


def _point(epsilon, accuracy):
    return CurvePoint(epsilon, epsilon, 0.0, (accuracy,), 0.95)


def _curve(values):
    return Curve("rr", "label", "test accuracy", tuple(_point(e, v) for e, v in values.items()))


def test_bisection_follows_the_crossing_until_its_neighbours_are_within_ten_percent():
    def truth(epsilon):  # a dip the grid does not see: the crossing is later than the line's
        return 0.5 + 0.2 * math.log2(epsilon) - (0.15 if 1.2 < epsilon < 2 else 0.0)

    asked = []

    def fetch(epsilon):
        asked.append(epsilon)
        return _point(epsilon, truth(epsilon))

    target = make_target("accuracy", 0.65)
    coarse = _curve({e: truth(e) for e in (1.0, 2.0, 4.0)})
    assert answer(coarse, target).epsilon == pytest.approx(2**0.75)
    fine = answer(bisect(coarse, target, fetch), target)
    assert asked[0] == 1.41 and fine.above <= 1.1 * fine.below
    assert 2.0 >= fine.epsilon > 1.75  # past the dip, where the true curve crosses


def test_bisection_stops_when_no_point_comes_back_or_none_is_needed():
    coarse = _curve({1.0: 0.5, 2.0: 0.9})
    assert bisect(coarse, make_target("accuracy", 0.6), lambda e: None) == coarse
    assert bisect(coarse, make_target("accuracy", 0.95), lambda e: 1 / 0) == coarse  # not reached
    assert bisect(coarse, make_target("accuracy", 0.4), lambda e: 1 / 0) == coarse  # at the start
    assert midpoint(0.1, 0.25) == 0.158 and midpoint(2.0, 2.001) is None


def test_reading_the_tree_finds_every_point_any_bisection_cached_so_targets_stay_ordered():
    def truth(epsilon):  # concave on log ε: the line between grid points lies below the curve
        return 0.9 - 0.4 / epsilon

    cached = {}

    def computing(epsilon):
        cached[epsilon] = _point(epsilon, truth(epsilon))
        return cached[epsilon]

    grid = _curve({e: truth(e) for e in (1.0, 2.0, 4.0, 8.0)})
    bisect(grid, make_target("accuracy", 0.78), computing)  # narrows between 2 and 4 only
    bisect(grid, make_target("accuracy", 0.62), computing)  # and between 1 and 2
    read = read_tree(grid, cached.get)
    assert sorted(read.epsilons) == sorted({1.0, 2.0, 4.0, 8.0, *cached})
    targets = [0.55 + 0.01 * i for i in range(30)]
    found = [answer(read, make_target("accuracy", t)).epsilon for t in targets]
    reached = [e for e in found if e is not None]
    assert reached == sorted(reached) and len(reached) == len(found)


def test_a_grid_epsilon_between_the_neighbours_comes_before_their_midpoint():
    grid = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    asked = []

    def fetch(epsilon):
        asked.append(epsilon)
        return _point(epsilon, 0.5 + 0.1 * math.log2(epsilon))

    coarse = _curve({0.1: 0.5 + 0.1 * math.log2(0.1), 8.0: 0.8})
    bisect(coarse, make_target("accuracy", 0.65), fetch, grid=grid)
    # 1 is the grid's ε nearest the geometric mean of 0.1 and 8 (0.89); then 2 and 4 (tied
    # around 2.83, the first taken), and only then midpoints between neighbouring grid ε.
    assert asked[:4] == [1.0, 2.0, 4.0, 2.83]
