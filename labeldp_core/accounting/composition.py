"""Pure-DP composition and the split of one budget between a prior and the release.

Sequential composition: mechanisms that all read the same labels add their epsilons. Parallel
composition: mechanisms that read disjoint sets of labels cost the largest of their epsilons,
because one changed label is seen by only one of them.

Sums are exact: every epsilon is a double, which ``fractions.Fraction`` holds exactly, so a split
is checked and a composed total computed on fractions, and the total reported is rounded *up* to
a double, as the noise plans round their own epsilons (a sum rounded to nearest could fall one
unit in the last place below the loss of the noise drawn).
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_list, check_probability
from labeldp_core.errors import InvalidInputError

__all__ = [
    "BudgetSplit",
    "parallel_composition",
    "sequential_composition",
    "split_budget",
    "split_budget_by_share",
]


def _budgets(epsilons: Iterable[float]) -> list[float]:
    values = check_list(epsilons, "composition's epsilons", "[0.5, 0.25]")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, Real):
            raise InvalidInputError(f"every epsilon must be a number, got {value!r}")
        if not np.isfinite(value) or value < 0:
            raise InvalidInputError(f"every epsilon must be finite and >= 0, got {value}")
    return [float(value) for value in values]


def _exact_sum(epsilons: Iterable[float]) -> Fraction:
    return sum((Fraction(value) for value in epsilons), Fraction(0))


def _float_at_least(value: Fraction) -> float:
    """The smallest double >= ``value`` (infinity beyond the largest double)."""
    try:
        nearest = float(value)
    except OverflowError:
        return math.inf
    if Fraction(nearest) < value:
        nearest = math.nextafter(nearest, math.inf)
    return nearest


def sequential_composition(epsilons: Iterable[float]) -> float:
    """Total epsilon of pure-DP mechanisms that all see the same data: their sum.

    The sum is exact and rounded up to a double, so the figure is never below the true total.

    >>> sequential_composition([0.25, 0.75])
    1.0
    >>> sequential_composition([0.1, 0.7]) > 0.1 + 0.7  # the float sum rounds below the exact one
    True
    """
    return _float_at_least(_exact_sum(_budgets(epsilons)))


def parallel_composition(epsilons: Iterable[float]) -> float:
    """Total epsilon of pure-DP mechanisms on disjoint data: the largest of them.

    >>> parallel_composition([1.0, 1.0])
    1.0
    """
    return float(max(_budgets(epsilons)))


@dataclass(frozen=True)
class BudgetSplit:
    """A total budget spent in two sequential steps: first the prior, then the release."""

    total: float
    prior_epsilon: float
    release_epsilon: float

    @property
    def spent(self) -> float:
        """What the two steps cost together (sequential composition); never above ``total``."""
        return sequential_composition([self.prior_epsilon, self.release_epsilon])

    @property
    def prior_share(self) -> float:
        """Fraction of the spent budget that went to the prior."""
        return self.prior_epsilon / self.spent


def split_budget(total: float, prior_epsilon: float) -> BudgetSplit:
    """Give ``prior_epsilon`` to the prior and exactly what is left of ``total`` to the release.

    ``prior_epsilon`` may be 0 (a prior that reads no labels). The release budget is rounded down
    by a unit in the last place at a time until the exact sum of the two doubles is at most
    ``total``, so the composed total (rounded up) never exceeds ``total`` either.

    Raises:
        InvalidInputError: if the prior budget is negative or leaves nothing for the release.
    """
    total = check_epsilon(total)
    if isinstance(prior_epsilon, bool) or not isinstance(prior_epsilon, Real):
        raise InvalidInputError(
            f"prior_epsilon must be a finite number >= 0, got {prior_epsilon!r}"
        )
    prior_epsilon = float(prior_epsilon)
    if not np.isfinite(prior_epsilon) or prior_epsilon < 0:
        raise InvalidInputError(f"prior_epsilon must be a finite number >= 0, got {prior_epsilon}")
    release_epsilon = total - prior_epsilon
    if release_epsilon <= 0:
        raise InvalidInputError(
            f"prior_epsilon={prior_epsilon:g} leaves no budget for the release out of "
            f"epsilon={total:g}; choose prior_epsilon below {total:g} "
            f"(e.g. {0.2 * total:.3g}, a fifth of the total)"
        )
    while _exact_sum([prior_epsilon, release_epsilon]) > Fraction(total):
        release_epsilon = math.nextafter(release_epsilon, 0.0)
    return BudgetSplit(total=total, prior_epsilon=prior_epsilon, release_epsilon=release_epsilon)


def split_budget_by_share(total: float, prior_share: float) -> BudgetSplit:
    """Give the fraction ``prior_share`` (in [0, 1)) of ``total`` to the prior, the rest released.

    >>> split_budget_by_share(2.0, 0.25)
    BudgetSplit(total=2.0, prior_epsilon=0.5, release_epsilon=1.5)
    """
    if prior_share == 0:
        return split_budget(total, 0.0)
    share = check_probability(prior_share, "prior_share")
    return split_budget(total, share * check_epsilon(total))
