"""Discrete Laplace noise for integer counts: P(x) proportional to alpha^|x|, alpha = e^(-eps/D).

Adding it to an integer query of L1 sensitivity D gives epsilon-DP: moving the query by D changes
the probability of any output by at most alpha^-D = e^epsilon. The noise stays an integer, so a
noisy count needs no rounding (rounding continuous Laplace noise would change its distribution).

Sampling: the difference of two independent geometric variables with P(G = g) = (1 - alpha)
alpha^g has exactly this distribution; the draws are those of
:meth:`~labeldp_core.noise.noise_plans.LaplacePlan.discrete` in float mode, from a NumPy
generator (exact integers from os.urandom need ``noise="secure"`` where a release offers it).
"""

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_positive, check_real_array
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import laplace_plan

__all__ = [
    "discrete_laplace_noise",
    "discrete_laplace_parameter",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
]


def discrete_laplace_parameter(epsilon: float, sensitivity: float = 1.0) -> float:
    """The decay alpha = e^(-epsilon / sensitivity) of the noise's probability mass function.

    >>> round(discrete_laplace_parameter(np.log(4), 2), 12)
    0.5
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    return float(np.exp(-epsilon / sensitivity))


def discrete_laplace_pmf(
    values: np.ndarray, epsilon: float, sensitivity: float = 1.0
) -> np.ndarray:
    """P(noise = x) = (1 - alpha) / (1 + alpha) * alpha^|x| for integers ``values``."""
    alpha = discrete_laplace_parameter(epsilon, sensitivity)
    values = check_real_array(values, "values")
    if not np.all(values == np.round(values)):
        raise InvalidInputError("values must be whole numbers: the noise takes integer values only")
    magnitude = np.abs(values)
    return (1.0 - alpha) / (1.0 + alpha) * alpha**magnitude


def discrete_laplace_variance(epsilon: float, sensitivity: float = 1.0) -> float:
    """Variance 2 alpha / (1 - alpha)^2 of the noise (twice a geometric variable's variance)."""
    alpha = discrete_laplace_parameter(epsilon, sensitivity)
    return 2.0 * alpha / (1.0 - alpha) ** 2


def discrete_laplace_noise(
    shape: int | tuple[int, ...],
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Integer noise of the given shape calibrated to ``epsilon`` and an L1 ``sensitivity``.

    Args:
        shape: shape of the noise array (one draw per count).
        epsilon: the DP budget of the noisy counts as a whole.
        sensitivity: the largest L1 change of the whole count vector when one person's
            data changes (2 for a histogram of labels where one label is replaced).
        rng: the source of randomness.

    Returns:
        An int64 array of the given shape.
    """
    discrete_laplace_parameter(epsilon, sensitivity)  # checks both
    dimensions = (shape,) if isinstance(shape, int | np.integer) else shape
    if not isinstance(dimensions, tuple) or not all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0 for d in dimensions
    ):
        raise InvalidInputError(
            f"shape must be a whole number >= 0 or a tuple of them, e.g. (3, 10), got {shape!r}"
        )
    return laplace_plan(sensitivity, epsilon).discrete(dimensions, rng)
