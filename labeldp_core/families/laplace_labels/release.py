"""Laplace noise on labels: on one-hot vectors for classification, on values for regression.

Privacy unit: one training label, replace-one neighbours.

One-hot: two one-hot vectors differ by 2 in L1 (a 1 moves), so each coordinate gets Lap(0, 2/ε).
Regression: a value in [low, high] moves by at most high - low, so it gets Lap(0, (high-low)/ε)
and is clamped back to [low, high]. Noise is drawn and added as floats: rounding the noise before
adding it would change its distribution and the privacy proof with it.

Whatever is computed from a released vector alone (its argmax, a clamped and renormalised soft
label, a rounded 0/1 vector) is post-processing and costs no extra privacy.

Secure mode (``noise="secure"``): one-hot vectors and integer labels are integers, so they can
take exact discrete Laplace noise of the same scale instead, drawn from os.urandom by
:mod:`labeldp_core.noise.secure_noise`. Adding an integer to an integer involves no
rounding, and the discrete noise's pmf ratio at distance Δ is e^(Δ/b) exactly as the density's;
the scale is rounded up to a fraction, so the guaranteed epsilon is Δ/b <= the one asked for.
"""

from numbers import Real
from typing import Literal

import numpy as np
from scipy import integrate, special

from labeldp_core.base.validation import (
    check_labels,
    check_num_classes,
    check_positive,
    check_real_array,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.laplace import laplace_cdf, laplace_density, laplace_scale
from labeldp_core.noise.noise_plans import LaplacePlan, check_plan, laplace_plan
from labeldp_core.noise.secure_noise import Source, argmax_random_ties, check_noise

#: The release API the family declares, served by :mod:`labeldp_core.mechanisms`.
PUBLIC = (
    "ONE_HOT_SENSITIVITY",
    "POST_PROCESSING",
    "argmax_accuracy",
    "clamp_normalise",
    "clamp_round",
    "discrete_argmax_accuracy",
    "discrete_one_hot_log_pmf",
    "expected_discrete_regression_mse",
    "expected_regression_mse",
    "laplace_one_hot",
    "laplace_regression",
    "one_hot_log_density",
    "post_process",
    "regression_log_likelihood",
)
__all__ = [
    *PUBLIC,
    "DISCRETE_ARGMAX_MAX_SCALE",
    "PUBLIC",
    "PostProcessing",
    "check_values",
    "laplace_one_hot_by_plan",
    "laplace_regression_by_plan",
]

#: L1 distance between two different one-hot vectors.
ONE_HOT_SENSITIVITY = 2.0

PostProcessing = Literal["argmax", "soft", "round"]
#: What each post-processing of a noisy one-hot vector gives the training loop.
POST_PROCESSING: dict[str, str] = {
    "argmax": "the index of the largest coordinate: a hard label",
    "soft": "coordinates clamped to [0, 1] and divided by their sum: a soft label",
    "round": "coordinates clamped to [0, 1] and rounded to 0 or 1; the ones share the mass",
}


# --- closed-form facts -------------------------------------------------------------------------


def argmax_accuracy(epsilon: float, num_classes: int) -> float:
    """Probability that the argmax of a noisy one-hot vector is the true label.

    The true coordinate is 1 + N_0 and the others N_j, all N ~ Lap(0, b) with b = 2/ε, so
    P = E[F(1 + N_0)^(K-1)] = ∫ f(x) F(1 + x)^(K-1) dx, with f and F the Laplace density and CDF.
    Integrated numerically in units of b (x = b s), split where the integrand has kinks.
    """
    num_classes = check_num_classes(num_classes)
    shift = 1.0 / laplace_scale(ONE_HOT_SENSITIVITY, epsilon)

    def integrand(s: float) -> float:
        return float(laplace_density(s, 1.0) * laplace_cdf(shift + s, 1.0) ** (num_classes - 1))

    pieces = [(-np.inf, -shift), (-shift, 0.0), (0.0, np.inf)]
    return min(1.0, float(sum(integrate.quad(integrand, a, b)[0] for a, b in pieces)))


def one_hot_log_density(outputs: np.ndarray, label: int, epsilon: float) -> np.ndarray:
    """Log density of :func:`laplace_one_hot` releasing each row of ``outputs`` for ``label``.

    log p(o | a) = -K log(2b) - ||o - e_a||_1 / b, so for labels a, b the log ratio is
    (||o - e_b||_1 - ||o - e_a||_1) / b, at most ||e_a - e_b||_1 / b = 2/b = ε.
    """
    outputs = _check_vectors(np.atleast_2d(check_real_array(outputs, "outputs")))
    num_classes = outputs.shape[1]
    scale = laplace_scale(ONE_HOT_SENSITIVITY, epsilon)
    one_hot = np.eye(num_classes)[check_labels([label], num_classes)[0]]
    distance = np.abs(outputs - one_hot).sum(axis=1)
    return -num_classes * np.log(2.0 * scale) - distance / scale


def expected_regression_mse(
    values: np.ndarray | float, epsilon: float, low: float, high: float
) -> np.ndarray:
    """E[(clamp(y + N) - y)^2] for N ~ Lap(0, (high-low)/ε), clamped to [low, high], per value y.

    With u = high - y and d = y - low, integrating each side of zero gives
    b^2 (G(u/b) + G(d/b)) with G(x) = 1 - e^(-x)(1 + x): 2b^2 for noise the clamp never reaches,
    less what the clamp saves on each side. G is the CDF of a Gamma(2, 1) variable, evaluated
    with ``scipy.special.gammainc`` so that tiny epsilons (huge b) do not cancel to garbage.
    """
    values = check_values(values, low, high)
    scale = laplace_scale(float(high) - float(low), epsilon)
    up, down = (float(high) - values) / scale, (values - float(low)) / scale
    return scale**2 * (special.gammainc(2.0, up) + special.gammainc(2.0, down))


def regression_log_likelihood(
    outputs: np.ndarray, value: float, epsilon: float, low: float, high: float
) -> np.ndarray:
    """Log likelihood of :func:`laplace_regression` releasing each of ``outputs`` for ``value``.

    Inside (low, high) it is the log density of Lap(value, b); at the ends it is the log of the
    probability mass the clamp piles there: P(value + N <= low) = e^(-(value-low)/b) / 2, and the
    same at ``high``. Ratios between two values y, y' stay within e^(|y - y'|/b) <= e^ε.
    """
    outputs = check_values(outputs, low, high)
    value = float(check_values(np.asarray([value]), low, high)[0])
    scale = laplace_scale(float(high) - float(low), epsilon)
    inside = -np.log(2.0 * scale) - np.abs(outputs - value) / scale
    at_low = np.log(0.5) - (value - low) / scale
    at_high = np.log(0.5) - (high - value) / scale
    return np.where(outputs == low, at_low, np.where(outputs == high, at_high, inside))


def _decay(scale: float) -> tuple[float, float]:
    # a = e^(-1/b) of discrete Laplace noise with scale b, and 1 - a without cancellation.
    scale = float(check_positive(scale, "scale"))
    one_minus = -float(np.expm1(-1.0 / scale))
    return 1.0 - one_minus, one_minus


#: Largest scale for which :func:`discrete_argmax_accuracy` sums its series (40 scales each way).
DISCRETE_ARGMAX_MAX_SCALE = 1e5


def discrete_argmax_accuracy(scale: float, num_classes: int) -> float:
    """Probability that the argmax, ties broken at random, of a secure noisy one-hot is right.

    Every coordinate gets discrete Laplace noise Z with P(z) = c a^|z|, a = e^(-1/b). The true
    coordinate is 1 + Z_0; it wins against K-1 others with T of them tied at its value with
    probability 1/(T+1), and summing the binomial over T gives
    P = (1/K) sum_x P(Z = x-1)/P(Z = x) (F(x)^K - F(x-1)^K), with F the CDF of Z and the ratio
    1/a for x >= 1 and a for x <= 0. The series is summed 40 scales each way (what is left is
    below e^-40), for scales up to DISCRETE_ARGMAX_MAX_SCALE.
    """
    num_classes = check_num_classes(num_classes)
    a, _ = _decay(scale)
    if scale > DISCRETE_ARGMAX_MAX_SCALE:
        raise InvalidInputError(
            f"discrete_argmax_accuracy sums 40 scales each way; scale {scale:g} is above "
            f"{DISCRETE_ARGMAX_MAX_SCALE:g}, where the argmax is right about 1/K of the time"
        )
    reach = int(np.ceil(40.0 * float(scale))) + 2
    x = np.arange(-reach, reach + 1, dtype=np.float64)
    # F(x) = a^(-x) / (1 + a) below zero and 1 - a^(x+1) / (1 + a) from zero up.
    cdf = np.where(x < 0, a ** (-x) / (1.0 + a), 1.0 - a ** (x + 1.0) / (1.0 + a))
    below = np.concatenate([[0.0], cdf[:-1]])
    ratio = np.where(x >= 1, 1.0 / a, a)
    return float(min(1.0, np.sum(ratio * (cdf**num_classes - below**num_classes)) / num_classes))


def discrete_one_hot_log_pmf(outputs: np.ndarray, label: int, scale: float) -> np.ndarray:
    """Log probability that the secure :func:`laplace_one_hot` at ``scale`` releases each row.

    log P(o | a) = K log c - ||o - e_a||_1 / b for integer rows o, with c = (1 - e^(-1/b)) /
    (1 + e^(-1/b)); the log ratio between two labels is at most ||e_a - e_b||_1 / b = 2/b.
    """
    outputs = np.atleast_2d(np.asarray(outputs, dtype=np.float64))
    num_classes = outputs.shape[1]
    a, one_minus = _decay(scale)
    one_hot = np.eye(num_classes)[check_labels([label], num_classes)[0]]
    distance = np.abs(outputs - one_hot).sum(axis=1)
    return num_classes * (np.log(one_minus) - np.log1p(a)) - distance / float(scale)


def expected_discrete_regression_mse(
    values: np.ndarray | float, scale: float, low: int, high: int
) -> np.ndarray:
    """E[(clamp(y + Z) - y)^2] for discrete Laplace Z of scale b, clamped to [low, high], per y.

    With u = high - y and d = y - low, the noise the clamp leaves alone contributes
    c (W(u) + W(d)) with W(n) = sum_(z=1..n) z^2 a^z, and each clamped side its squared distance
    times P(Z > u) = a^(u+1) / (1 + a) (the same at the low end).
    """
    values = _check_integer_values(values, low, high)
    a, one_minus = _decay(scale)
    span = np.arange(0, int(high) - int(low) + 1, dtype=np.float64)
    weighted = np.cumsum(span**2 * a**span)  # W(n) for n = 0..high-low
    up, down = (int(high) - values).astype(np.int64), (values - int(low)).astype(np.int64)
    inside = one_minus / (1.0 + a) * (weighted[up] + weighted[down])
    clamped = (up**2 * a ** (up + 1.0) + down**2 * a ** (down + 1.0)) / (1.0 + a)
    return inside + clamped


# --- release functions ------------------------------------------------------------------------


def laplace_one_hot(
    labels: np.ndarray,
    epsilon: float,
    num_classes: int,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every label as its one-hot vector plus Lap(0, 2/ε) noise on each coordinate.

    Args:
        labels: 1-D integer class indices in 0..K-1.
        epsilon: the label-DP budget; each label is released once with this budget.
        num_classes: K, the number of classes.
        rng: the source of randomness (of the float noise).
        noise: ``float`` for NumPy's Laplace noise, ``secure`` for exact discrete Laplace
            noise from os.urandom (then the vectors hold integers); either way the noise is
            ``laplace_plan(2, epsilon, noise)``'s, which spends its ``epsilon_spent`` <= epsilon.
        source: where secure noise draws its bits; os.urandom if None. A ``SeededSource`` is
            for tests and illustrations only.

    Returns:
        A float64 array ``(n, K)`` of noisy vectors.
    """
    num_classes = check_num_classes(num_classes)
    plan = laplace_plan(ONE_HOT_SENSITIVITY, epsilon, noise)
    return laplace_one_hot_by_plan(labels, num_classes, plan, rng, source)


def laplace_one_hot_by_plan(
    labels: np.ndarray,
    num_classes: int,
    plan: LaplacePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Every label as its one-hot vector plus the Laplace noise of ``plan`` on each coordinate.

    The plan draws the noise and states what it spends, so a run reports the epsilon of the
    very noise it added; it must be planned for the one-hot vector's L1 sensitivity, 2.
    """
    plan = _check_plan_sensitivity(plan, ONE_HOT_SENSITIVITY, "a one-hot vector")
    num_classes = check_num_classes(num_classes)
    labels = check_labels(labels, num_classes)
    shape = (labels.shape[0], num_classes)
    # Secure noise is integer: exactly representable as float64.
    noisy = plan.draw(shape, rng, source).astype(np.float64, copy=False)
    noisy[np.arange(labels.shape[0]), labels] += 1.0
    return noisy


def laplace_regression(
    values: np.ndarray,
    epsilon: float,
    low: float,
    high: float,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every value plus Lap(0, (high-low)/ε) noise, clamped to [low, high].

    Args:
        values: 1-D numbers in [low, high] (class indices 0..K-1 for digits, say).
        epsilon: the label-DP budget; each value is released once with this budget.
        low: smallest possible value; the clamp's lower end.
        high: largest possible value; high - low is the sensitivity.
        rng: the source of randomness (of the float noise).
        noise: ``float`` for NumPy's Laplace noise, ``secure`` for exact discrete Laplace noise
            from os.urandom (secure needs integer values and integer ends); either way the noise
            is ``laplace_plan(high - low, epsilon, noise)``'s.
        source: where secure noise draws its bits; os.urandom if None (SeededSource: tests).

    Returns:
        A float64 array of released values in [low, high], same shape as ``values``.
    """
    check = _check_integer_values if check_noise(noise) == "secure" else check_values
    check(values, low, high)  # first, so that low >= high is named as such
    plan = laplace_plan(float(high) - float(low), epsilon, noise)
    return laplace_regression_by_plan(values, low, high, plan, rng, source)


def laplace_regression_by_plan(
    values: np.ndarray,
    low: float,
    high: float,
    plan: LaplacePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Every value plus the Laplace noise of ``plan``, clamped to [low, high].

    The plan must be planned for the sensitivity high - low; it draws the noise and states
    what it spends, so a run reports the epsilon of the very noise it added.
    """
    plan = _check_plan_sensitivity(plan, float(high) - float(low), "a value in [low, high]")
    check = _check_integer_values if plan.secure else check_values
    values = check(values, low, high)
    return np.clip(values + plan.draw(values.shape, rng, source), low, high)


def _check_plan_sensitivity(plan: object, sensitivity: float, what: str) -> LaplacePlan:
    plan = check_plan(plan, LaplacePlan, "laplace_plan")
    if plan.sensitivity != sensitivity:
        raise InvalidInputError(
            f"the noise must be planned for the L1 sensitivity of {what}, {sensitivity:g}, "
            f"got a plan for {plan.sensitivity:g}"
        )
    return plan


# --- post-processing (free) -------------------------------------------------------------------


def clamp_normalise(noisy: np.ndarray) -> np.ndarray:
    """Clamp each coordinate to [0, 1] and divide by the row's sum: a probability vector.

    A row whose coordinates all clamp to zero carries no information and becomes uniform.
    """
    clamped = np.clip(_check_vectors(noisy), 0.0, 1.0)
    totals = clamped.sum(axis=1, keepdims=True)
    uniform = np.full_like(clamped, 1.0 / clamped.shape[1])
    return np.divide(clamped, totals, out=uniform, where=totals > 0)


def clamp_round(noisy: np.ndarray) -> np.ndarray:
    """Clamp each coordinate to [0, 1] and round it: a 0/1 vector with any number of ones."""
    return np.rint(np.clip(_check_vectors(noisy), 0.0, 1.0))


def post_process(
    noisy: np.ndarray,
    post: PostProcessing,
    rng: np.random.Generator | None = None,
    *,
    secure_ties: bool = False,
) -> np.ndarray:
    """Training targets from noisy one-hot vectors, see :data:`POST_PROCESSING`.

    Returns int64 labels ``(n,)`` for ``argmax`` and probability rows ``(n, K)`` otherwise; a
    rounded row with several ones splits its mass among them and one with none is uniform.
    Given ``rng``, or with ``secure_ties`` (coins from os.urandom), argmax breaks ties
    uniformly at random (secure noise is integer, so ties are common; otherwise every tie goes
    to the smallest class index).
    """
    if post == "argmax":
        if rng is not None or secure_ties:
            return argmax_random_ties(_check_vectors(noisy), rng)
        return _check_vectors(noisy).argmax(axis=1)
    if post == "soft":
        return clamp_normalise(noisy)
    if post == "round":
        return clamp_normalise(clamp_round(noisy))
    raise InvalidInputError(
        f"unknown post-processing {post!r}; choose one of: {', '.join(POST_PROCESSING)}"
    )


# --- input checks -----------------------------------------------------------------------------


def check_values(values: object, low: float, high: float) -> np.ndarray:
    """Return ``values`` as finite float64 in [low, high], after checking the range itself."""
    if any(isinstance(end, bool) or not isinstance(end, Real) for end in (low, high)):
        raise InvalidInputError(f"low and high must be numbers, got low={low!r}, high={high!r}")
    if not (np.isfinite(low) and np.isfinite(high)) or not low < high:
        raise InvalidInputError(
            f"the value range needs finite low < high, got low={low}, high={high}"
        )
    array = np.asarray(values)
    if array.size == 0:
        raise InvalidInputError("values is empty; pass at least one value")
    if not (np.issubdtype(array.dtype, np.number) and np.all(np.isfinite(array))):
        raise InvalidInputError("values must be finite numbers")
    array = array.astype(np.float64)
    if array.min() < low or array.max() > high:
        raise InvalidInputError(
            f"values must lie in [{low:g}, {high:g}] (the sensitivity is high - low), found "
            f"{array.min():g} to {array.max():g}; widen the range or clip the values first"
        )
    return array


def _check_integer_values(values: object, low: float, high: float) -> np.ndarray:
    """:func:`check_values`, and the values and both ends must be whole numbers (secure noise)."""
    array = check_values(values, low, high)
    if not (float(low).is_integer() and float(high).is_integer()):
        raise InvalidInputError(
            f"secure noise needs whole-number ends, got low={low}, high={high}; use noise=float"
        )
    if not np.all(array == np.round(array)):
        raise InvalidInputError(
            "secure noise is integer noise for integer values; these values have fractional "
            "parts, so use noise=float (or scale them to integers first)"
        )
    return array


def _check_vectors(noisy: object) -> np.ndarray:
    array = check_real_array(noisy, "noisy vectors")
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] < 2:
        raise InvalidInputError(f"expected noisy vectors of shape (n, K >= 2), got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InvalidInputError("noisy vectors must be finite numbers")
    return array
