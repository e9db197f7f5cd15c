"""The coarse search: which grid ε a mechanism without an answer computes, and what is left."""

import pytest

from labeldp_core.choosing import make_target
from labeldp_core.choosing.coarse import coarse_grid, next_coarse, trainings_left
from labeldp_core.choosing.curves import Curve, CurvePoint

GRID = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
TARGET = make_target("accuracy", 0.8)


def _curve(**accuracy_at: float) -> Curve:
    """A curve of one seed per ε, given as e.g. ``_curve(e1=0.7, e8=0.9)`` (ε 1 and 8)."""
    points = [
        CurvePoint(float(name[1:].replace("_", ".")), 1.0, 0.0, (score,), 0.97)
        for name, score in accuracy_at.items()
    ]
    return Curve("rr", "label", "test accuracy", tuple(sorted(points, key=lambda p: p.epsilon)))


@pytest.mark.parametrize(
    ("grid", "coarse"),
    [
        (GRID, (0.1, 1.0, 8.0)),
        ((0.5, 1.0, 2.0, 4.0, 8.0, 16.0), (0.5, 2.0, 16.0)),  # PATE's; 2 and 4 are as near
        ((0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0), (0.01, 0.3, 10.0)),  # the DP prototypes'
        ((2.0,), (2.0,)),
    ],
)
def test_the_coarse_grid_is_the_smallest_the_middle_on_log_eps_and_the_largest(grid, coarse):
    assert coarse_grid(grid) == coarse


@pytest.mark.parametrize(
    ("curve", "following"),
    [
        (None, 1.0),  # nothing yet: the middle
        (_curve(e1=0.85), 0.1),  # reached at the middle: down to the smallest
        (_curve(e1=0.7), 8.0),  # not reached: up to the largest
        (_curve(e8=0.85), 1.0),  # a cached largest point alone, reached: the middle next
        (_curve(e0_1=0.7, e1=0.85), None),  # reached between two computed ε: bisection's now
        (_curve(e0_1=0.85, e1=0.9), None),  # reached at the grid's smallest ε
        (_curve(e1=0.7, e8=0.75), None),  # not reached up to the grid's largest ε
    ],
)
def test_the_search_goes_down_from_a_reached_point_and_up_from_one_below(curve, following):
    assert next_coarse(curve, TARGET, GRID) == following


def every_seed(epsilon: float) -> int:
    """Every seed is missing at every ε."""
    return 3


def test_the_runs_left_are_the_worst_case_over_what_the_next_points_show():
    assert trainings_left(None, TARGET, GRID, every_seed) == 6  # the middle, then one end
    partly = {0.1: 1, 1.0: 0, 8.0: 3}.get
    assert trainings_left(None, TARGET, GRID, partly) == 3  # middle cached; 8 costs more
    assert trainings_left(_curve(e8=0.85), TARGET, GRID, every_seed) == 6  # 1, then maybe 0.1
    assert trainings_left(_curve(e1=0.7), TARGET, GRID, every_seed) == 3
    assert trainings_left(_curve(e1=0.7, e8=0.9), TARGET, GRID, every_seed) == 0
