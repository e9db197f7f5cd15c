"""The Laplace distribution as a privacy tool: scale, density, tails and the epsilon calculator.

Adding noise drawn from Lap(0, b), density exp(-|x|/b) / (2b), to a query whose value changes by at
most Δ in L1 norm between neighbouring inputs is (Δ/b)-DP; so b = Δ/ε buys ε. Everything here is a
closed form used by the Laplace mechanisms, their tests and the noise-explorer page.
"""

import math

import numpy as np

from labeldp_core.base.validation import (
    check_epsilon,
    check_positive,
    check_probability,
    check_real_array,
)
from labeldp_core.errors import InvalidInputError

__all__ = [
    "epsilon_for_noise",
    "laplace_cdf",
    "laplace_density",
    "laplace_epsilon",
    "laplace_scale",
    "laplace_variance",
    "tail_probability",
]


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ/ε of the Laplace noise that makes a query of L1 sensitivity Δ ε-DP.

    >>> laplace_scale(2.0, 0.5)
    4.0
    """
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    return sensitivity / check_epsilon(epsilon)


def laplace_epsilon(sensitivity: float, scale: float) -> float:
    """The privacy loss Δ/b of Laplace noise at scale b on a query of L1 sensitivity Δ.

    This is exact, not a bound: two inputs whose query values differ by exactly Δ have a density
    ratio of e^(Δ/b) at every output beyond both values.
    """
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    return sensitivity / float(check_positive(scale, "scale"))


def laplace_variance(scale: float) -> float:
    """Variance 2 b^2 of Lap(0, b)."""
    return 2.0 * float(check_positive(scale, "scale")) ** 2


def laplace_density(x: np.ndarray | float, scale: float) -> np.ndarray:
    """Density exp(-|x|/b) / (2b) of Lap(0, b) at ``x``."""
    scale = float(check_positive(scale, "scale"))
    return np.exp(-np.abs(check_real_array(x, "x")) / scale) / (2.0 * scale)


def laplace_cdf(x: np.ndarray | float, scale: float) -> np.ndarray:
    """P(N <= x) for N ~ Lap(0, b): e^(x/b)/2 below zero, 1 - e^(-x/b)/2 above."""
    scale = float(check_positive(scale, "scale"))
    x = check_real_array(x, "x")
    half_tail = 0.5 * np.exp(-np.abs(x) / scale)
    return np.where(x < 0, half_tail, 1.0 - half_tail)


def tail_probability(threshold: np.ndarray | float, scale: float) -> np.ndarray:
    """P(|N| > t) = e^(-t/b) for N ~ Lap(0, b) and t >= 0."""
    scale = float(check_positive(scale, "scale"))
    threshold = check_real_array(threshold, "the noise magnitude t")
    if np.any(threshold < 0) or not np.all(np.isfinite(threshold)):
        raise InvalidInputError("the noise magnitude t must be a finite number >= 0")
    return np.exp(-threshold / scale)


def epsilon_for_noise(magnitude: float, probability: float, sensitivity: float) -> float:
    """The epsilon at which Laplace noise stays within ±t with probability p.

    P(|N| <= t) = 1 - e^(-t/b) = p gives b = t / ln(1/(1-p)), and with b = Δ/ε:
    ε = Δ ln(1/(1-p)) / t. Smaller noise or higher confidence costs a larger epsilon.

    >>> round(epsilon_for_noise(1.0, 0.5, 2.0), 6)  # noise within ±1 half of the time, Δ = 2
    1.386294
    """
    magnitude = float(check_positive(magnitude, "noise magnitude t"))
    probability = check_probability(probability, "probability p")
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    return sensitivity * -math.log1p(-probability) / magnitude
