"""Tail probabilities of discrete Laplace and discrete Gaussian noise, as natural logarithms.

PATE's data-dependent analysis needs q, the chance that noise changes a query's answer, and for
Confident-GNMax the chance that a query passes the threshold. With secure (integer) noise those
are tails of integer distributions, and ties count against the plurality, so the continuous
formulas do not apply; these are their exact discrete counterparts.

Notation: discrete Laplace with scale b has P(x) = c a^|x| with a = e^(-1/b) and
c = (1 - a)/(1 + a); discrete Gaussian with parameter sigma has P(x) = e^(-x^2 / (2 sigma^2)) / Z.
"""

import math

import numpy as np
from scipy.special import logsumexp

from labeldp_core.accounting.rdp import log1mexp

__all__ = [
    "log_gaussian_difference_tail",
    "log_gaussian_survival",
    "log_laplace_difference_tail",
]

#: Sums over the discrete Gaussian stop this many sigmas out; what is left is below e^(-800) of
#: the terms kept, far below double rounding.
_REACH = 40.0


def _integer_gaps(gaps: np.ndarray) -> np.ndarray:
    # D >= g is D >= ceil(g) for an integer D; negative gaps are not asked for here.
    return np.maximum(np.ceil(np.asarray(gaps, dtype=np.float64)), 0.0)


def log_laplace_difference_tail(gaps: np.ndarray, scale: float) -> np.ndarray:
    """Natural log of P(X - Y >= g), X and Y independent discrete Laplace of scale b, g >= 0.

    D = X - Y has P(D = d) = c^2 a^d (d - 1 + s) for d >= 0, with s = 2/(1 - a^2), so summing the
    geometric series gives P(D >= g) = c^2 a^g ((g + s - 1)/(1 - a) + a/(1 - a)^2).

    >>> float(np.exp(log_laplace_difference_tail(np.array([0.0]), 1.0))[0])  # 1/2 + P(D = 0)/2
    0.6402008309570564
    """
    g = _integer_gaps(gaps)
    one_minus_a = -math.expm1(-1.0 / scale)
    a = 1.0 - one_minus_a
    log_c = math.log(one_minus_a) - math.log1p(a)
    s = 2.0 / (one_minus_a * (1.0 + a))
    bracket = (g + s - 1.0) / one_minus_a + a / one_minus_a**2
    return 2.0 * log_c - g / scale + np.log(bracket)


def _grid(sigma: float, shift: float = 0.0) -> np.ndarray:
    # The integers within _REACH sigmas of zero, shifted by ``shift``.
    half = math.ceil(_REACH * sigma) + 2
    return np.arange(-half, half + 1, dtype=np.float64) + shift


def _log_normaliser(sigma: float) -> float:
    return float(logsumexp(-(_grid(sigma) ** 2) / (2.0 * sigma**2)))


def log_gaussian_difference_tail(gaps: np.ndarray, sigma: float) -> np.ndarray:
    """Natural log of P(X - Y >= g), X and Y independent discrete Gaussians (sigma), g >= 0.

    Completing the square, P(D = d) = e^(-d^2 / (4 sigma^2)) Theta_(d mod 2) / Z^2 with
    Theta_0 = sum_x e^(-x^2/sigma^2) and Theta_1 = sum_x e^(-(x + 1/2)^2/sigma^2): one sum per
    parity, then a tail sum over d computed from the far end inwards.
    """
    g = _integer_gaps(gaps)
    largest = float(g.max()) if g.size else 0.0
    log_theta = [float(logsumexp(-(_grid(sigma, shift) ** 2) / sigma**2)) for shift in (0.0, 0.5)]
    d = np.arange(0, math.ceil(largest + 2 * _REACH * sigma) + 3, dtype=np.float64)
    log_terms = -(d**2) / (4.0 * sigma**2) + np.where(d % 2 == 0, log_theta[0], log_theta[1])
    log_tails = np.logaddexp.accumulate(log_terms[::-1])[::-1]
    return log_tails[g.astype(np.int64)] - 2.0 * _log_normaliser(sigma)


def log_gaussian_survival(thresholds: np.ndarray, sigma: float) -> np.ndarray:
    """Natural log of P(X >= m), X a discrete Gaussian with parameter sigma, m of any sign.

    For m >= 1 the upper tail is summed directly; for m <= 0 it is 1 - P(X >= 1 - m) by symmetry,
    taken as log(1 - e^x) so that a probability within 1e-20 of one keeps its distance from one
    (the threshold check's q is that distance).
    """
    m = np.ceil(np.asarray(thresholds, dtype=np.float64))
    upper = np.where(m >= 1, m, 1.0 - m)  # always >= 1
    largest = float(upper.max()) if upper.size else 1.0
    x = np.arange(0, math.ceil(largest + _REACH * sigma) + 3, dtype=np.float64)
    log_tails = np.logaddexp.accumulate((-(x**2) / (2.0 * sigma**2))[::-1])[::-1]
    log_upper = log_tails[upper.astype(np.int64)] - _log_normaliser(sigma)
    return np.where(m >= 1, log_upper, log1mexp(log_upper))
