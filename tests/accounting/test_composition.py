import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from labeldp_core.accounting import (
    parallel_composition,
    sequential_composition,
    split_budget,
    split_budget_by_share,
)
from labeldp_core.errors import InvalidInputError

#: Issue 34's example: a fifth of this epsilon to the prior left a release whose exact sum with the
#: prior was above the total by under one unit in the last place, while the floats said "equal".
EXAMPLE = 5.082239008815137
#: A dense grid of totals: 0.001 steps up to 10, then a geometric grid up to 40 (the example's).
DENSE_TOTALS = [round(0.001 * i, 3) for i in range(1, 10_001)] + list(np.geomspace(0.01, 40, 600))
SHARES = (0.1, 0.2, 0.5)


def test_sequential_adds_and_parallel_takes_the_largest():
    assert sequential_composition([0.2, 0.3, 0.5]) == pytest.approx(1.0)
    assert parallel_composition([0.2, 0.3, 0.5]) == 0.5
    assert parallel_composition([1.0, 1.0]) == 1.0


@pytest.mark.parametrize("epsilons", [[], [-0.1], [math.inf], [math.nan]])
def test_composition_refuses_bad_budgets(epsilons):
    with pytest.raises(InvalidInputError):
        sequential_composition(epsilons)


def test_split_gives_rr_exactly_what_is_left():
    split = split_budget(1.0, 0.25)
    assert (split.prior_epsilon, split.release_epsilon, split.spent) == (0.25, 0.75, 1.0)
    assert split.prior_share == 0.25
    assert split_budget(2.0, 0.0).release_epsilon == 2.0


@given(total=st.floats(1e-3, 100.0), share=st.floats(1e-3, 0.999))
def test_spent_never_exceeds_the_total_and_rr_gets_the_rest(total, share):
    split = split_budget_by_share(total, share)
    assert split.spent <= total
    assert split.release_epsilon > 0
    assert split.release_epsilon == pytest.approx(total - split.prior_epsilon, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("total", "prior", "match"),
    [
        (1.0, 1.0, "leaves no budget"),
        (1.0, 1.5, "leaves no budget"),
        (1.0, -0.1, ">= 0"),
        (1.0, math.nan, ">= 0"),
        (0.0, 0.1, "greater than 0"),
    ],
)
def test_bad_splits_are_refused(total, prior, match):
    with pytest.raises(InvalidInputError, match=match):
        split_budget(total, prior)


@pytest.mark.parametrize("share", [-0.1, 1.0, 1.5, float("nan")])
def test_share_must_lie_in_0_to_1_leaving_budget_for_the_release(share):
    with pytest.raises(InvalidInputError, match="prior_share"):
        split_budget_by_share(1.0, share)


def test_a_zero_share_means_no_prior_and_the_whole_budget_released():
    split = split_budget_by_share(1.5, 0.0)
    assert (split.prior_epsilon, split.release_epsilon, split.spent) == (0.0, 1.5, 1.5)


def test_the_example_split_fits_its_total_in_exact_arithmetic():
    split = split_budget_by_share(EXAMPLE, 0.2)
    assert Fraction(split.prior_epsilon) + Fraction(split.release_epsilon) <= Fraction(EXAMPLE)
    assert split.spent == EXAMPLE  # one unit in the last place was taken from the release only


def test_splits_fit_their_totals_exactly_on_a_dense_grid():
    for total in DENSE_TOTALS:
        for share in SHARES:
            split = split_budget_by_share(float(total), share)
            exact = Fraction(split.prior_epsilon) + Fraction(split.release_epsilon)
            assert exact <= Fraction(split.total), (total, share)
            assert Fraction(split.spent) >= exact
            assert split.spent <= split.total
            # The release lost at most a few units in the last place to the exact check.
            assert split.total - split.prior_epsilon - split.release_epsilon <= 4 * math.ulp(total)


@given(total=st.floats(1e-3, 100.0), prior=st.floats(0.0, 100.0))
@example(total=EXAMPLE, prior=0.2 * EXAMPLE)
def test_any_split_fits_its_total_exactly(total, prior):
    if prior >= total:
        return
    split = split_budget(total, prior)
    assert Fraction(split.prior_epsilon) + Fraction(split.release_epsilon) <= Fraction(total)


def _sum_rounded_up_is_the_smallest_double(epsilons: list[float]) -> None:
    composed = sequential_composition(epsilons)
    exact = sum(map(Fraction, epsilons), Fraction(0))
    assert Fraction(composed) >= exact
    assert Fraction(math.nextafter(composed, -math.inf)) < exact or composed == 0.0


def test_sequential_composition_rounds_the_exact_sum_up():
    # 0.1 + 0.7 rounds to nearest below the exact sum of the two doubles.
    assert Fraction(0.1 + 0.7) < Fraction(0.1) + Fraction(0.7)
    assert sequential_composition([0.1, 0.7]) == math.nextafter(0.1 + 0.7, math.inf)
    _sum_rounded_up_is_the_smallest_double([0.1, 0.7])
    assert sequential_composition([0.0]) == 0.0


@given(epsilons=st.lists(st.floats(0.0, 1e3), min_size=1, max_size=6))
@example(epsilons=[1.0164478017630274, 4.06579120705211])
def test_sequential_composition_is_the_smallest_double_at_least_the_exact_sum(epsilons):
    _sum_rounded_up_is_the_smallest_double(epsilons)
