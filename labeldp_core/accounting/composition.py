"""Pure-DP budget bookkeeping: splitting a budget between steps and adding the steps up.

Under sequential composition, running an ε1-DP step and then an ε2-DP step on the same labels
(the second may look at the first's output) is (ε1 + ε2)-DP. A mechanism that first spends part of
its budget on a prior and the rest on the release therefore spends exactly the sum.
"""

import math
from dataclasses import dataclass
from numbers import Real

from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon

__all__ = ["BudgetSplit", "sequential_composition", "split_budget"]


@dataclass(frozen=True)
class BudgetSplit:
    """A budget divided between a prior (0 if none is estimated) and the release."""

    prior: float
    release: float

    @property
    def total(self) -> float:
        """What both steps spend together under sequential composition."""
        return sequential_composition(self.prior, self.release)


def split_budget(epsilon: float, prior_share: float) -> BudgetSplit:
    """Give ``prior_share`` of ``epsilon`` to the prior and exactly what is left to the release.

    >>> split_budget(2.0, 0.25)
    BudgetSplit(prior=0.5, release=1.5)
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(prior_share, bool) or not isinstance(prior_share, Real):
        raise InvalidInputError(f"prior_share must be a number, got {prior_share!r}")
    if not 0.0 <= prior_share < 1.0:
        raise InvalidInputError(
            f"prior_share must lie in [0, 1) so the release keeps some budget, got {prior_share}"
        )
    prior = epsilon * float(prior_share)
    return BudgetSplit(prior=prior, release=epsilon - prior)


def sequential_composition(*epsilons: float) -> float:
    """Total epsilon of pure-DP steps run one after another on the same data: their sum."""
    if any(not math.isfinite(e) or e < 0 for e in epsilons):
        raise InvalidInputError(f"each step's epsilon must be finite and >= 0, got {epsilons}")
    return float(math.fsum(epsilons))
