"""The exact privacy curve of the Gaussian mechanism (Balle & Wang 2018, Theorem 8).

Adding N(0, sigma^2 I) to a query of L2 sensitivity Delta is (epsilon, delta)-DP exactly when

    delta >= Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu),   mu = Delta / sigma,

for every epsilon: the whole curve, not one point of it. Accountants (RDP, zCDP) report one
point, loosely; an audit checks a point of this exact curve instead, so that a mechanism with
less noise than it reports cannot hide in the accountant's slack.
"""

import math

from scipy.special import ndtr, ndtri

from labeldp_core.base.validation import check_positive, check_probability

__all__ = ["gaussian_delta", "gaussian_point"]


def gaussian_delta(epsilon: float, mu: float) -> float:
    """The smallest delta of the Gaussian mechanism with mu = Delta / sigma at ``epsilon``.

    >>> round(gaussian_delta(0.0, 1.0), 6)  # total variation: 2 Phi(1/2) - 1
    0.382925
    """
    mu = float(check_positive(mu, "mu"))
    epsilon = float(epsilon)
    return float(ndtr(mu / 2 - epsilon / mu) - math.exp(epsilon) * ndtr(-mu / 2 - epsilon / mu))


def gaussian_point(mu: float, tail: float) -> tuple[float, float]:
    """The (epsilon, delta) of the curve whose tightest event has probability ``tail`` when absent.

    In noise units the two outputs are N(0, 1) and N(mu, 1); the event {score >= t} with
    P(N(0, 1) >= t) = ``tail`` has likelihood ratio e^(mu t - mu^2 / 2) at its edge, so it is the
    event that makes (epsilon = mu t - mu^2/2, delta(epsilon)) tight. A moderate ``tail`` keeps
    that event frequent enough to be measured well.

    >>> epsilon, delta = gaussian_point(1.0, 0.1)
    >>> round(epsilon, 4), round(delta, 4)
    (0.7816, 0.1707)
    """
    mu = float(check_positive(mu, "mu"))
    tail = check_probability(tail, "tail")
    threshold = max(float(-ndtri(tail)), mu / 2 + 1e-6)  # above mu/2: epsilon > 0
    epsilon = mu * threshold - mu**2 / 2
    return epsilon, gaussian_delta(epsilon, mu)
