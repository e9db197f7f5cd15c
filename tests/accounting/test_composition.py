import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeldp_core.accounting import (
    parallel_composition,
    sequential_composition,
    split_budget,
    split_budget_by_share,
)
from labeldp_core.errors import InvalidInputError


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
    [(1.0, 1.0, "leaves no budget"), (1.0, 1.5, "leaves no budget"), (1.0, -0.1, ">= 0"),
     (1.0, math.nan, ">= 0"), (0.0, 0.1, "greater than 0")],
)  # fmt: skip
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
