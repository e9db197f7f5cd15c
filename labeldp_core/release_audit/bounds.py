"""Clopper-Pearson intervals and the epsilon lower bound they give for one output event.

If a mechanism is (ε, δ)-DP then for neighbours D0, D1 and every event E,
P[M(D0) ∈ E] <= e^ε P[M(D1) ∈ E] + δ, so ε >= ln((p0 - δ) / p1). With p0 bounded from below and
p1 from above by exact binomial (Clopper-Pearson) intervals, the bound holds with the stated
confidence (Jagielski, Ullman, Oprea 2020).
"""

import math

from scipy.special import betaincinv

__all__ = ["clopper_pearson", "epsilon_lower_bound", "largest_provable_epsilon"]


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Two-sided exact interval for a binomial proportion with coverage ``1 - alpha``.

    >>> low, high = clopper_pearson(0, 10, 0.05)
    >>> low, round(high, 4)
    (0.0, 0.3085)
    """
    # The beta distribution's quantiles, as scipy.stats.beta.ppf computes them (without loading
    # scipy.stats, half a second of every command's start).
    low = 0.0 if successes == 0 else betaincinv(successes, trials - successes + 1, alpha / 2)
    high = (
        1.0 if successes == trials else betaincinv(successes + 1, trials - successes, 1 - alpha / 2)
    )
    return float(low), float(high)


def epsilon_lower_bound(
    hits0: int, trials0: int, hits1: int, trials1: int, delta: float, alpha: float
) -> float:
    """ln((lower(p0) - δ) / upper(p1)), valid with confidence ``1 - alpha`` (0 if not positive).

    Each proportion gets a one-sided bound at level alpha / 2 (the two-sided interval at alpha),
    so both hold together with probability at least ``1 - alpha``.
    """
    p0_low, _ = clopper_pearson(hits0, trials0, alpha)
    _, p1_high = clopper_pearson(hits1, trials1, alpha)
    if p0_low - delta <= 0 or p1_high <= 0:
        return 0.0
    return max(0.0, math.log((p0_low - delta) / p1_high))


def largest_provable_epsilon(trials: int, alpha: float) -> float:
    """The largest lower bound ``trials`` draws per neighbour can give (delta 0): the ceiling.

    It is reached when every draw on one neighbour and none on the other hits the event, about
    ln(trials / ln(2 / alpha)): an audit cannot tell apart two claims above it, so a control
    that leaks more than this is flagged only with more trials.

    >>> round(largest_provable_epsilon(100_000, 0.05), 2)
    10.21
    """
    return epsilon_lower_bound(trials, trials, 0, trials, 0.0, alpha)
