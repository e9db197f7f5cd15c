"""Exact discrete Laplace and discrete Gaussian noise from a cryptographic source.

Floating-point Laplace noise (``numpy.random.laplace``) leaks through its low-order bits: the set
of doubles it can return depends on the value it was added to, so a released number can reveal
the input exactly (Mironov 2012). The samplers here use integer arithmetic only (Canonne, Kamath,
Steinke 2020, "The Discrete Gaussian for Differential Privacy", Algorithms 1-3, vectorised over
arrays) and draw their bits from the operating system's cryptographic generator, so the noise has
exactly the distribution the privacy proof assumes. Added to integer-valued data (vote counts,
integer labels, one-hot vectors), discrete Laplace with scale Δ/ε gives ε-DP for L1 sensitivity Δ.

Each sampler takes a ``source`` of random 64-bit words: :class:`SecureSource` (the default) for
real use, :class:`SeededSource` only for reproducible tests.
"""

import math
import os
from fractions import Fraction

import numpy as np

from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon, check_positive

__all__ = [
    "MAX_DENOMINATOR",
    "SecureSource",
    "SeededSource",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_laplace",
    "rational_scale",
    "uniform_below",
]

#: Scales are rounded *up* to a fraction with at most this denominator (more noise, never less).
MAX_DENOMINATOR = 1000
#: Keeps every intermediate product of the Gaussian's rejection step inside int64.
MAX_SIGMA = 2000.0


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


def rational_scale(sensitivity: float, epsilon: float) -> Fraction:
    """The smallest fraction with denominator MAX_DENOMINATOR that is >= sensitivity / epsilon.

    Rounding up means the noise is never smaller than the privacy proof needs; the epsilon
    actually guaranteed is ``sensitivity / rational_scale(...)``, at most the one asked for.
    """
    epsilon = check_epsilon(epsilon)
    check_positive(sensitivity, "sensitivity")
    target = Fraction(sensitivity) / Fraction(epsilon)
    return Fraction(math.ceil(target * MAX_DENOMINATOR), MAX_DENOMINATOR)


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


def _bernoulli_exp_at_most_one(numerator: np.ndarray, denominator: np.ndarray, source: Source):
    # CKS Algorithm 1 for gamma = n/d in [0, 1]: K = first k with Bernoulli(gamma/k) = 0;
    # output 1 when K is odd. Bernoulli(n / (d k)) is "uniform below d k is below n".
    result = np.empty(numerator.shape, dtype=bool)
    k = np.ones(numerator.shape, dtype=np.int64)
    pending = np.arange(numerator.size)
    while pending.size:
        success = uniform_below(denominator[pending] * k[pending], source) < numerator[pending]
        stopped = pending[~success]
        result[stopped] = k[stopped] % 2 == 1
        k[pending[success]] += 1
        pending = pending[success]
    return result


def bernoulli_exp(numerator: np.ndarray, denominator: np.ndarray, source: Source) -> np.ndarray:
    """Exact Bernoulli(exp(-n/d)) draws for integer arrays n >= 0, d >= 1 (CKS Algorithm 1)."""
    numerator = np.asarray(numerator, dtype=np.int64)
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.int64), numerator.shape)
    whole, part = np.divmod(numerator, denominator)
    # exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))): all factors must succeed.
    result = _bernoulli_exp_at_most_one(part, denominator.copy(), source)
    alive = np.flatnonzero(result & (whole > 0))
    remaining = whole.copy()
    while alive.size:
        ones = np.ones(alive.size, dtype=np.int64)
        survived = _bernoulli_exp_at_most_one(ones, ones, source)
        result[alive[~survived]] = False
        remaining[alive] -= 1
        alive = alive[survived & (remaining[alive] > 0)]
    return result


def _discrete_laplace_batch(scale: Fraction, count: int, source: Source) -> np.ndarray:
    # One round of CKS Algorithm 2 for scale t/s; returns the accepted draws (fewer than count).
    s, t = scale.denominator, scale.numerator
    u = uniform_below(np.full(count, t, dtype=np.int64), source)
    u = u[bernoulli_exp(u, np.int64(t), source)]
    v = np.zeros(u.size, dtype=np.int64)
    going = np.arange(u.size)
    while going.size:
        ones = np.ones(going.size, dtype=np.int64)
        success = bernoulli_exp(ones, ones, source)
        v[going[success]] += 1
        going = going[success]
    magnitude = (u + t * v) // s
    negative = uniform_below(np.full(u.size, 2, dtype=np.int64), source) == 1
    accept = ~(negative & (magnitude == 0))
    return np.where(negative, -magnitude, magnitude)[accept]


def _collect(draw, size: int) -> np.ndarray:
    parts, have = [], 0
    while have < size:
        batch = draw(max(2 * (size - have), 64))
        parts.append(batch)
        have += batch.size
    return np.concatenate(parts)[:size] if parts else np.zeros(0, dtype=np.int64)


def discrete_laplace(scale: Fraction, size: int, source: Source | None = None) -> np.ndarray:
    """``size`` exact draws with P(y) proportional to exp(-|y| / scale) on the integers."""
    scale = Fraction(scale)
    if scale <= 0:
        raise InvalidInputError(f"discrete Laplace scale must be > 0, got {scale}")
    source = source or SecureSource()
    return _collect(lambda n: _discrete_laplace_batch(scale, n, source), size)


def _discrete_gaussian_batch(sigma2: Fraction, count: int, source: Source) -> np.ndarray:
    # CKS Algorithm 3: discrete Laplace proposals with scale t = floor(sigma) + 1, accepted with
    # probability exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)), written as an exact ratio of integers.
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1
    y = _discrete_laplace_batch(Fraction(t), count, source)
    numerator = (np.abs(y) * q * t - p) ** 2
    accept = bernoulli_exp(numerator, np.int64(2 * p * q * t * t), source)
    return y[accept]


def discrete_gaussian(sigma: float, size: int, source: Source | None = None) -> np.ndarray:
    """``size`` exact draws with P(y) proportional to exp(-y^2 / (2 sigma^2)) on the integers.

    ``sigma^2`` is rounded up to a fraction with denominator MAX_DENOMINATOR.
    """
    check_positive(sigma, "sigma")
    if sigma > MAX_SIGMA:
        raise InvalidInputError(
            f"secure discrete Gaussian supports sigma up to {MAX_SIGMA:g}, got {sigma:g}; "
            "use the floating-point noise mode for larger noise"
        )
    sigma2 = Fraction(math.ceil(Fraction(sigma) ** 2 * MAX_DENOMINATOR), MAX_DENOMINATOR)
    source = source or SecureSource()
    return _collect(lambda n: _discrete_gaussian_batch(sigma2, n, source), size)


def discrete_gaussian_pmf(values: np.ndarray, sigma: float, support: int = 10_000) -> np.ndarray:
    """P(Y = y) of the discrete Gaussian, normalised over ``[-support, support]``."""
    grid = np.arange(-support, support + 1, dtype=float)
    normaliser = np.exp(-(grid**2) / (2 * sigma**2)).sum()
    return np.exp(-(np.asarray(values, dtype=float) ** 2) / (2 * sigma**2)) / normaliser
