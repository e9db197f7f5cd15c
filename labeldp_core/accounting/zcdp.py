"""Zero-concentrated DP (zCDP, Bun & Steinke 2016): the Gaussian mechanism, composition, conversion.

A mechanism is rho-zCDP when the Renyi divergence of order alpha between its outputs on
neighbouring datasets is at most rho * alpha for every alpha > 1. Facts used here:

- the Gaussian mechanism with L2 sensitivity Delta and noise N(0, sigma^2 I) is
  Delta^2 / (2 sigma^2)-zCDP;
- rho values add up under (adaptive) composition;
- an epsilon-DP mechanism is epsilon^2 / 2-zCDP, but a rho-zCDP mechanism is *not*
  sqrt(2 rho)-DP: it is only (epsilon, delta)-DP with epsilon from :func:`zcdp_to_approx_dp`;
- for a group of k examples (replace-one is a group of two under add/remove), rho becomes k^2 rho.
"""

import math

from labeldp_core.base.validation import check_positive, check_probability

__all__ = [
    "gaussian_sigma",
    "gaussian_zcdp",
    "group_zcdp",
    "rho_for_approx_dp",
    "zcdp_of_pure_dp",
    "zcdp_to_approx_dp",
]


def zcdp_of_pure_dp(epsilon: float) -> float:
    """The zCDP rho = epsilon^2 / 2 that an epsilon-DP mechanism has (Bun & Steinke, Prop 1.4).

    >>> zcdp_of_pure_dp(1.0)
    0.5
    """
    epsilon = check_positive(epsilon, "epsilon")
    return float(epsilon) ** 2 / 2


def gaussian_zcdp(sensitivity: float, sigma: float) -> float:
    """The zCDP rho = Delta^2 / (2 sigma^2) of the Gaussian mechanism (Bun & Steinke, Prop 1.6).

    >>> gaussian_zcdp(1.0, 1.0)
    0.5
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    sigma = check_positive(sigma, "sigma")
    return float(sensitivity) ** 2 / (2 * float(sigma) ** 2)


def gaussian_sigma(sensitivity: float, rho: float) -> float:
    """The noise standard deviation that makes the Gaussian mechanism exactly rho-zCDP.

    >>> gaussian_sigma(2.0, 0.5)
    2.0
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    rho = check_positive(rho, "rho")
    return float(sensitivity) / math.sqrt(2 * float(rho))


def group_zcdp(rho: float, group_size: int) -> float:
    """The zCDP of a rho-zCDP mechanism for neighbours ``group_size`` = k examples apart: k^2 rho.

    Replace-one neighbours are two add/remove steps apart, so they get 4 rho.
    """
    rho = check_positive(rho, "rho")
    group_size = check_positive(group_size, "group_size", integer=True)
    return float(rho) * int(group_size) ** 2


def zcdp_to_approx_dp(rho: float, delta: float) -> float:
    """The epsilon of (epsilon, delta)-DP that rho-zCDP implies: rho + 2 sqrt(rho ln(1/delta)).

    The standard conversion (Bun & Steinke 2016, Prop 1.3). It is the minimum over Renyi orders
    alpha of alpha rho + ln(1/delta) / (alpha - 1); tighter conversions exist (Canonne, Kamath &
    Steinke 2020) and give a slightly smaller epsilon, so the figure reported here is safe.

    >>> round(zcdp_to_approx_dp(0.5, 1e-5), 4)
    5.2985
    """
    rho = check_positive(rho, "rho")
    delta = check_probability(delta, "delta")
    return float(rho) + 2 * math.sqrt(float(rho) * math.log(1 / delta))


def rho_for_approx_dp(epsilon: float, delta: float) -> float:
    """The largest rho whose :func:`zcdp_to_approx_dp` at ``delta`` is at most ``epsilon``.

    Solving rho + 2 sqrt(rho L) = epsilon (L = ln(1/delta)) for sqrt(rho) gives
    rho = (sqrt(L + epsilon) - sqrt(L))^2, written as epsilon^2 / (sqrt(L + epsilon) + sqrt(L))^2
    so that a small epsilon does not cancel; rho is then lowered one unit in the last place at a
    time until the conversion, as computed, is at most ``epsilon``.

    >>> rho = rho_for_approx_dp(1.0, 1e-5)
    >>> zcdp_to_approx_dp(rho, 1e-5) <= 1.0, round(rho, 5)
    (True, 0.02082)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_probability(delta, "delta")
    log_term = math.log(1 / delta)
    rho = float(epsilon) ** 2 / (math.sqrt(log_term + epsilon) + math.sqrt(log_term)) ** 2
    while zcdp_to_approx_dp(rho, delta) > epsilon:
        rho = math.nextafter(rho, 0.0)
    return rho
