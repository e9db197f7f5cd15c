"""Exact discrete Laplace and discrete Gaussian noise from a cryptographic source.

Floating-point Laplace noise (``numpy.random.laplace``) leaks through its low-order bits: the set
of doubles it can return depends on the value it was added to, so a released number can reveal
the input exactly (Mironov 2012). The samplers here use integer arithmetic only (Canonne, Kamath,
Steinke 2020, "The Discrete Gaussian for Differential Privacy", Algorithms 1-3, vectorised over
arrays) and draw their bits from the operating system's cryptographic generator, so the noise has
exactly the distribution the privacy proof assumes. Added to integer-valued data (vote counts,
integer labels, one-hot vectors), discrete Laplace with scale Δ/ε gives ε-DP for L1 sensitivity Δ,
and discrete Gaussian noise of variance parameter σ² has Rényi DP at most α Δ₂² / (2σ²), no more
than the continuous Gaussian's (Canonne, Kamath, Steinke 2020, Proposition 5 / Theorem 15).

Each sampler takes a ``source`` of random 64-bit words: :class:`SecureSource` (the default) for
real use, :class:`SeededSource` only for reproducible tests and illustrations.

Scales are fractions: a Laplace scale is rounded *up* to a fraction (more noise, never less), so
the epsilon actually guaranteed, :func:`guaranteed_epsilon`, is at most the one asked for.
"""

import math
import os
from decimal import Decimal
from fractions import Fraction

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_positive
from labeldp_core.errors import InvalidInputError

__all__ = [
    "MAX_DENOMINATOR",
    "MAX_SCALE_NUMERATOR",
    "MAX_SIGMA",
    "NOISE_KINDS",
    "SecureSource",
    "SeededSource",
    "Source",
    "argmax_random_ties",
    "bernoulli_exp",
    "check_noise",
    "discrete_gaussian",
    "discrete_gaussian_of_variance",
    "discrete_gaussian_pmf",
    "discrete_laplace",
    "float_at_least",
    "guaranteed_epsilon",
    "rational_at_least",
    "rational_scale",
    "rational_variance",
    "uniform_below",
    "uniform_doubles",
]

#: Scales are rounded *up* to a fraction with at most this denominator (more noise, never less).
MAX_DENOMINATOR = 1000
#: Largest numerator t of a discrete Laplace scale t/s: keeps the sampler's integers in int64.
MAX_SCALE_NUMERATOR = 2**40
#: Largest discrete Gaussian sigma: with sigma^2 rounded to a coarser fraction as sigma grows
#: (see :func:`rational_variance`), every integer of the rejection step stays inside int64.
MAX_SIGMA = 20_000.0
#: The values of every ``noise`` argument: NumPy's floating-point noise, or the exact samplers.
NOISE_KINDS = ("float", "secure")

#: Products of sampler integers are kept at or below this bound (int64 holds up to 2^63 - 1).
_INT_LIMIT = 2**62
#: Whole parts of a Bernoulli(exp(-gamma)) exponent are capped here; see :func:`bernoulli_exp`.
_WHOLE_CAP = 2**62


class SecureSource:
    """Random 64-bit words from the operating system's cryptographic generator (``os.urandom``)."""

    def words(self, count: int) -> np.ndarray:
        """``count`` independent uniform uint64 values."""
        return np.frombuffer(os.urandom(8 * count), dtype=np.uint64)


class SeededSource:
    """Reproducible random words for tests; not for releasing data."""

    def __init__(self, seed: int) -> None:
        self._generator = np.random.Generator(np.random.PCG64(seed))

    def words(self, count: int) -> np.ndarray:
        """``count`` independent uniform uint64 values."""
        return np.frombuffer(self._generator.bytes(8 * count), dtype=np.uint64)


Source = SecureSource | SeededSource


# --- choosing the noise and its exact scale ---------------------------------------------------


def check_noise(noise: object) -> str:
    """Return ``noise`` after checking it is one of :data:`NOISE_KINDS`."""
    if noise not in NOISE_KINDS:
        raise InvalidInputError(
            f"noise must be one of {', '.join(NOISE_KINDS)}, got {noise!r}; 'secure' draws exact "
            "integer noise from os.urandom, 'float' uses NumPy's floating-point noise"
        )
    return str(noise)


def rational_at_least(value: float, max_denominator: int = MAX_DENOMINATOR) -> Fraction:
    """The smallest fraction with denominator ``max_denominator`` that is >= ``value`` (> 0).

    >>> rational_at_least(2 / 3)
    Fraction(667, 1000)
    """
    check_positive(value, "noise scale")
    return Fraction(math.ceil(Fraction(value) * max_denominator), max_denominator)


def rational_scale(sensitivity: float, epsilon: float) -> Fraction:
    """The smallest fraction with denominator MAX_DENOMINATOR that is >= sensitivity / epsilon.

    Rounding up means the noise is never smaller than the privacy proof needs; the epsilon
    actually guaranteed is ``sensitivity / rational_scale(...)``, at most the one asked for.
    """
    epsilon = check_epsilon(epsilon)
    check_positive(sensitivity, "sensitivity")
    target = Fraction(sensitivity) / Fraction(epsilon)
    scale = Fraction(math.ceil(target * MAX_DENOMINATOR), MAX_DENOMINATOR)
    _check_laplace_scale(scale)
    return scale


def float_at_least(value: Fraction | Decimal) -> float:
    """The smallest double that is >= ``value``: an exact rational or decimal rounded *up*.

    >>> float_at_least(Fraction(1, 3)) >= Fraction(1, 3) > float_at_least(Fraction(1, 3)) - 1e-16
    True
    """
    nearest = float(value)
    if Fraction(nearest) < Fraction(value):
        nearest = math.nextafter(nearest, math.inf)
    return nearest


def guaranteed_epsilon(sensitivity: float, scale: Fraction) -> float:
    """The epsilon that discrete Laplace noise of ``scale`` guarantees for ``sensitivity``: Δ/scale.

    Computed exactly as a fraction and rounded *up* to a double, so the figure is never below
    the true loss, and for a scale from :func:`rational_scale` it is at most the epsilon asked
    for (the scale was rounded up, which leaves room far beyond one unit in the last place).

    >>> guaranteed_epsilon(2, rational_scale(2, 0.3))
    0.29998500074996254
    """
    return float_at_least(Fraction(sensitivity) / Fraction(scale))


def rational_variance(sigma: float) -> Fraction:
    """sigma^2 rounded *up* to a fraction small enough for exact int64 arithmetic.

    The denominator is MAX_DENOMINATOR when sigma is small and 100, 10 or 1 as it grows: the
    discrete Gaussian's rejection step works with 2 p q t^2 for sigma^2 = p/q and
    t = floor(sigma) + 1, which must stay below 2^62. Rounding sigma^2 up by at most 1/q adds
    noise, never removes it.

    >>> rational_variance(3.0), rational_variance(10000.3)
    (Fraction(9, 1), Fraction(1000060001, 10))
    """
    check_positive(sigma, "sigma")
    if sigma > MAX_SIGMA:
        raise InvalidInputError(
            f"secure discrete Gaussian supports sigma up to {MAX_SIGMA:g}, got {sigma:g}; "
            "use the floating-point noise mode for larger noise"
        )
    for denominator in (MAX_DENOMINATOR, 100, 10, 1):
        variance = rational_at_least(Fraction(sigma) ** 2, denominator)
        p, q = variance.numerator, variance.denominator
        t = math.isqrt(p // q) + 1
        if 2 * p * q * t * t <= _INT_LIMIT and q * t * t <= 2**31:
            return variance
    raise AssertionError("unreachable: denominator 1 fits every sigma up to MAX_SIGMA")


def _check_laplace_scale(scale: Fraction) -> None:
    if scale <= 0:
        raise InvalidInputError(f"discrete Laplace scale must be > 0, got {scale}")
    if scale.numerator > MAX_SCALE_NUMERATOR:
        raise InvalidInputError(
            f"secure discrete Laplace supports scales t/s with t up to 2^40, got {scale} "
            f"(about {float(scale):.4g}); use a larger epsilon or the floating-point noise mode"
        )


# --- exact Bernoulli and uniform draws ---------------------------------------------------------


def uniform_below(bounds: np.ndarray, source: Source) -> np.ndarray:
    """Exactly uniform integers in ``[0, bounds)`` per element, by rejection (no modulo bias)."""
    bounds = np.asarray(bounds, dtype=np.uint64)
    out = np.empty(bounds.shape, dtype=np.uint64)
    # 2^64 mod m, computed without leaving uint64: (2^64 - m) mod m.
    leftover = (np.uint64(0) - bounds) % bounds
    pending = np.arange(bounds.size)
    flat_bounds, flat_leftover, flat_out = bounds.ravel(), leftover.ravel(), out.ravel()
    while pending.size:
        words = source.words(pending.size)
        # Accept words below the largest multiple of m (all words when m divides 2^64).
        limit = np.uint64(0) - flat_leftover[pending]
        accept = (flat_leftover[pending] == 0) | (words < limit)
        flat_out[pending[accept]] = words[accept] % flat_bounds[pending[accept]]
        pending = pending[~accept]
    return flat_out.reshape(bounds.shape).astype(np.int64)


def _uniform_below_one_bound(bound: int, count: int, source: Source) -> np.ndarray:
    # uniform_below for one bound m shared by ``count`` draws: a mask of the low bits when m is
    # a power of two (exactly uniform, nothing rejected), else the general rejection.
    if bound & (bound - 1) == 0:
        return (source.words(count) & np.uint64(bound - 1)).astype(np.int64)
    return uniform_below(np.full(count, bound, dtype=np.int64), source)


def _bernoulli_ratio(
    numerator: np.ndarray, denominator: np.ndarray, k: np.ndarray, source: Source
) -> np.ndarray:
    # Bernoulli(n / (d k)) for n <= d. Certain when n >= d k (gamma = 1 at k = 1, as in every
    # step of the geometric draw): nothing is drawn. Else one uniform below d k where that
    # product fits int64, or else the two independent events "uniform below d is below n" and
    # "uniform below k is 0".
    big = k > _INT_LIMIT // denominator
    product = denominator * np.where(big, 1, k)
    drawn = ~big & (numerator < product)
    success = np.ones(numerator.shape, dtype=bool)
    if drawn.any():
        bounds = product[drawn]
        if np.all(bounds == bounds[0]):
            uniform = _uniform_below_one_bound(int(bounds[0]), bounds.size, source)
        else:
            uniform = uniform_below(bounds, source)
        success[drawn] = uniform < numerator[drawn]
    if big.any():
        first = uniform_below(denominator[big], source) < numerator[big]
        success[big] = first & (uniform_below(k[big], source) == 0)
    return success


def _bernoulli_exp_at_most_one(numerator: np.ndarray, denominator: np.ndarray, source: Source):
    # CKS Algorithm 1 for gamma = n/d in [0, 1]: K = first k with Bernoulli(gamma/k) = 0;
    # output 1 when K is odd. gamma = 0 always gives K = 1, so no draw is needed.
    result = np.ones(numerator.shape, dtype=bool)
    k = np.ones(numerator.shape, dtype=np.int64)
    pending = np.flatnonzero(numerator > 0)
    while pending.size:
        success = _bernoulli_ratio(numerator[pending], denominator[pending], k[pending], source)
        stopped = pending[~success]
        result[stopped] = k[stopped] % 2 == 1
        k[pending[success]] += 1
        pending = pending[success]
    return result


def _bernoulli_exp_parts(
    whole: np.ndarray, part: np.ndarray, denominator: np.ndarray, source: Source
) -> np.ndarray:
    # exp(-gamma) = exp(-1)^whole * exp(-part/d) for gamma = whole + part/d: all factors succeed.
    result = _bernoulli_exp_at_most_one(part, denominator, source)
    alive = np.flatnonzero(result & (whole > 0))
    remaining = whole.copy()
    while alive.size:
        ones = np.ones(alive.size, dtype=np.int64)
        survived = _bernoulli_exp_at_most_one(ones, ones, source)
        result[alive[~survived]] = False
        remaining[alive] -= 1
        alive = alive[survived & (remaining[alive] > 0)]
    return result


def bernoulli_exp(numerator: np.ndarray, denominator: np.ndarray, source: Source) -> np.ndarray:
    """Exact Bernoulli(exp(-n/d)) draws for integer arrays n >= 0, d >= 1 (CKS Algorithm 1)."""
    numerator = np.asarray(numerator, dtype=np.int64)
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.int64), numerator.shape)
    whole, part = np.divmod(numerator, denominator)
    return _bernoulli_exp_parts(whole, part, denominator.copy(), source)


# --- samplers ----------------------------------------------------------------------------------


def _geometric_exp_minus_one(count: int, source: Source) -> np.ndarray:
    # V with P(V >= v) = e^(-v): the number of Bernoulli(e^-1) successes before the first failure.
    v = np.zeros(count, dtype=np.int64)
    going = np.arange(count)
    while going.size:
        ones = np.ones(going.size, dtype=np.int64)
        success = _bernoulli_exp_at_most_one(ones, ones, source)
        v[going[success]] += 1
        going = going[success]
    return v


def _discrete_laplace_batch(scale: Fraction, count: int, source: Source) -> np.ndarray:
    # One round of CKS Algorithm 2 for scale t/s; returns the accepted draws (fewer than count).
    s, t = scale.denominator, scale.numerator
    u = _uniform_below_one_bound(t, count, source)
    u = u[bernoulli_exp(u, np.int64(t), source)]
    v = _geometric_exp_minus_one(u.size, source)
    magnitude = (u + t * v) // s
    negative = _uniform_below_one_bound(2, u.size, source) == 1
    accept = ~(negative & (magnitude == 0))
    return np.where(negative, -magnitude, magnitude)[accept]


def _collect(draw, size: int) -> np.ndarray:
    # Batches sized from the acceptance rate seen so far, so little is drawn in vain.
    parts, have, rate = [], 0, 0.5
    while have < size:
        wanted = math.ceil((size - have) / rate * 1.05) + 16
        batch = draw(wanted)
        parts.append(batch)
        have += batch.size
        rate = max(batch.size / wanted, 0.05)
    return np.concatenate(parts)[:size] if parts else np.zeros(0, dtype=np.int64)


def discrete_laplace(scale: Fraction, size: int, source: Source | None = None) -> np.ndarray:
    """``size`` exact draws with P(y) proportional to exp(-|y| / scale) on the integers."""
    scale = Fraction(scale)
    _check_laplace_scale(scale)
    source = source or SecureSource()
    return _collect(lambda n: _discrete_laplace_batch(scale, n, source), size)


def _squared_distance_parts(y: np.ndarray, p: int, q: int, t: int) -> tuple[np.ndarray, ...]:
    # gamma = (|y| - sigma^2/t)^2 / (2 sigma^2) = (|y| q t - p)^2 / (2 p q t^2), split into its
    # whole part and remainder over the denominator. Where (|y| q t - p)^2 would leave int64
    # (draws beyond about 30 sigma) the split is done with Python integers; the whole part is
    # then capped at 2^62: accepting needs that many Bernoulli(e^-1) successes in a row, so the
    # cap changes an acceptance probability below e^(-2^62) by less than e^(-2^62).
    denominator = 2 * p * q * t * t
    safe = np.abs(y) <= (2**31) // (q * t)
    distance = np.where(safe, np.abs(y), 0) * (q * t) - p
    whole, part = np.divmod(distance * distance, denominator)
    for index in np.flatnonzero(~safe):
        big_whole, big_part = divmod((abs(int(y[index])) * q * t - p) ** 2, denominator)
        whole[index], part[index] = min(big_whole, _WHOLE_CAP), big_part
    return whole, part, np.full(y.shape, denominator, dtype=np.int64)


def _discrete_gaussian_batch(variance: Fraction, count: int, source: Source) -> np.ndarray:
    # CKS Algorithm 3: discrete Laplace proposals with scale t = floor(sigma) + 1, accepted with
    # probability exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)), computed as an exact ratio of integers.
    p, q = variance.numerator, variance.denominator
    t = math.isqrt(p // q) + 1
    y = _discrete_laplace_batch(Fraction(t), count, source)
    accept = _bernoulli_exp_parts(*_squared_distance_parts(y, p, q, t), source)
    return y[accept]


def discrete_gaussian(sigma: float, size: int, source: Source | None = None) -> np.ndarray:
    """``size`` exact draws with P(y) proportional to exp(-y^2 / (2 sigma^2)) on the integers.

    ``sigma^2`` is rounded up by :func:`rational_variance`; that rounded variance is the one the
    draws have, and the one a privacy analysis should use.
    """
    return discrete_gaussian_of_variance(rational_variance(sigma), size, source)


def discrete_gaussian_of_variance(
    variance: Fraction, size: int, source: Source | None = None
) -> np.ndarray:
    """``size`` exact draws of the discrete Gaussian whose sigma^2 is the fraction ``variance``.

    ``variance`` must come from :func:`rational_variance`, which keeps the sampler's integers
    inside int64.
    """
    source = source or SecureSource()
    return _collect(lambda n: _discrete_gaussian_batch(Fraction(variance), n, source), size)


def discrete_gaussian_pmf(values: np.ndarray, sigma: float, support: int = 10_000) -> np.ndarray:
    """P(Y = y) of the discrete Gaussian, normalised over ``[-support, support]``."""
    grid = np.arange(-support, support + 1, dtype=float)
    normaliser = np.exp(-(grid**2) / (2 * sigma**2)).sum()
    return np.exp(-(np.asarray(values, dtype=float) ** 2) / (2 * sigma**2)) / normaliser


# --- post-processing of integer noisy values ---------------------------------------------------


def argmax_random_ties(
    values: np.ndarray, rng: np.random.Generator | None = None, source: Source | None = None
) -> np.ndarray:
    """Index of each row's largest value, ties broken uniformly at random.

    Integer noise makes ties common, and ``np.argmax`` would hand every tie to the smallest
    index. The random choice does not look at the data, so it is free post-processing. Its
    coins come from ``rng`` if given, else from ``source`` (os.urandom if None), so a secure
    release draws nothing from a seeded generator.
    """
    values = np.asarray(values)
    tied = values == values.max(axis=1, keepdims=True)
    coins = rng.random(values.shape) if rng is not None else uniform_doubles(values.shape, source)
    return np.where(tied, coins, -1.0).argmax(axis=1)


def uniform_doubles(shape: tuple[int, ...], source: Source | None = None) -> np.ndarray:
    """Uniform doubles in [0, 1) on the grid of 2^-53, from 53 bits of ``source`` (os.urandom)."""
    words = (source or SecureSource()).words(int(np.prod(shape)))
    return ((words >> np.uint64(11)).astype(np.float64) * 2.0**-53).reshape(shape)
