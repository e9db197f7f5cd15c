import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from labeldp_core.choosing.crossing import first_crossing, value_at
from labeldp_core.errors import InvalidInputError


def _brute_force(epsilons, values, target, steps=20001):
    """The smallest ε of a fine log grid (plus the computed ones) where the line is ≥ target."""
    grid = np.unique(np.concatenate([np.geomspace(epsilons[0], epsilons[-1], steps), epsilons]))
    line = np.interp(np.log(grid), np.log(epsilons), values)
    reached = grid[line >= target]  # exact: a tolerance would meet a target of 1e-80 at 0
    return float(reached[0]) if reached.size else None


def test_a_known_crossing_is_read_on_log_epsilon():
    found = first_crossing([0.1, 1.0, 10.0], [0.2, 0.6, 1.0], 0.8)
    assert found.epsilon == pytest.approx(math.sqrt(10))  # halfway between 1 and 10 on log ε
    assert (found.below, found.above, found.interpolated) == (1.0, 10.0, True)


def test_the_first_crossing_wins_on_a_curve_that_dips():
    found = first_crossing([1.0, 2.0, 4.0, 8.0], [0.5, 0.9, 0.7, 0.95], 0.8)
    assert (found.below, found.above) == (1.0, 2.0)


def test_a_target_never_reached_has_no_epsilon_and_one_met_at_the_start_no_lower_point():
    assert first_crossing([1.0, 2.0, 4.0], [0.5, 0.9, 0.7], 0.91) is None
    start = first_crossing([1.0, 2.0], [0.95, 0.9], 0.9)
    assert (start.epsilon, start.below, start.above, start.interpolated) == (1.0, None, 1.0, False)


def test_a_target_hit_exactly_at_a_computed_point_is_that_point_not_interpolated():
    found = first_crossing([1.0, 2.0, 4.0], [0.5, 0.8, 0.9], 0.8)
    assert (found.epsilon, found.interpolated) == (2.0, False)


def test_no_value_is_read_outside_the_computed_range():
    assert value_at([1.0, 4.0], [0.5, 0.9], 1.0) == 0.5
    with pytest.raises(InvalidInputError, match="outside the computed range"):
        value_at([1.0, 4.0], [0.5, 0.9], 8.0)
    with pytest.raises(InvalidInputError, match="ascending"):
        first_crossing([2.0, 1.0], [0.5, 0.9], 0.6)


curves = st.integers(2, 8).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.01, 100), min_size=n, max_size=n, unique=True).map(sorted),
        st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n),
    )
)


@given(curves, st.floats(0.0, 1.0))
@example(([0.65, 1.0, 98.89272724070298], [0.0, 0.0, 1.0]), 4.389136570384257e-80)
@example(([1.0, 49.31776997868879], [0.0, 0.0]), 4.389136570384257e-80)
def test_the_crossing_matches_a_brute_force_reading_of_the_same_line(curve, target):
    epsilons, values = curve
    found = first_crossing(epsilons, values, target)
    expected = _brute_force(np.array(epsilons), np.array(values), target)
    if found is None:
        assert expected is None
        return
    # The brute force's grid step on log ε bounds the difference.
    step = (math.log(epsilons[-1]) - math.log(epsilons[0])) / 20000
    assert math.log(expected) - math.log(found.epsilon) == pytest.approx(0, abs=step + 1e-9)
    assert value_at(epsilons, values, found.epsilon) >= target - 1e-9


@given(curves, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_higher_target_never_gets_a_smaller_epsilon(curve, first, second):
    low, high = sorted((first, second))
    at_low, at_high = first_crossing(*curve, low), first_crossing(*curve, high)
    if at_high is not None:
        assert at_low is not None and at_low.epsilon <= at_high.epsilon
