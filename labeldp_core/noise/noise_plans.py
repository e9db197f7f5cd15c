"""One owner per noise family: the plan that draws a mechanism's noise also reports its epsilon.

A plan is built once from (sensitivity or set sizes, epsilon or scale, noise mode) and is the only
place where the mode changes anything: the release functions draw through it, the experiments
report its ``epsilon_spent`` and its :meth:`describe` entries, and the pages ask it. This is the
shape of OpenDP's measurements (the object that draws the noise carries its own privacy map) and
of Opacus's ``_generate_noise`` (the secure branch in one place).

Noise modes:

- ``float``: NumPy's generator seeded by the run, reproducible; continuous noise leaks through
  its low-order bits (Mironov 2012).
- ``secure``: every draw from the operating system's cryptographic generator (``os.urandom``),
  exact integer noise on integer data (Canonne, Kamath & Steinke 2020) and exact rational coins.

Every ``epsilon_spent`` is an upper bound of the exact privacy loss of the noise drawn, computed
in exact arithmetic and rounded *up* to a double, and it is never above the epsilon asked for:
where the float calibration Δ/(Δ/ε) would come out one unit in the last place above ε, the scale
is raised by that unit instead.

Randomized response has no noise scale but the same rule: its keep coin is an exact rational
Bernoulli in both modes. For a set of k labels the true one is kept with probability
D / (D + (k - 1) m) and each other one reported with probability m / (D + (k - 1) m), where
λ = m / D is e^-ε rounded *up* on the grid of 1/D (D the power of two that keeps K D <= 2^62
for sets of up to K labels: 2^58 for K = 10); the ratio is D/m <= e^ε exactly, and
``epsilon_spent`` = ln(D/m) rounded up. Only the source of the bits differs between modes.
"""

import math
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_positive, check_rng
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.secure_noise import (
    SecureSource,
    Source,
    check_noise,
    discrete_gaussian_of_variance,
    discrete_laplace,
    float_at_least,
    guaranteed_epsilon,
    rational_at_least,
    rational_scale,
    rational_variance,
    uniform_below,
)

__all__ = [
    "FLOAT_SOURCE",
    "MAX_RR_SET",
    "SECURE_SOURCE",
    "GaussianPlan",
    "LaplacePlan",
    "RandomizedResponsePlan",
    "check_plan",
    "gaussian_plan",
    "laplace_plan",
    "laplace_plan_for_scale",
    "mode_details",
    "rr_plan",
    "uniform_integers",
]

_Plan = TypeVar("_Plan")

#: Where each mode's draws come from, as the details say it.
SECURE_SOURCE = "os.urandom (the operating system's cryptographic generator)"
FLOAT_SOURCE = "NumPy generator seeded by the run's seed"
#: Randomized response's coin bounds D + (k - 1) m stay at or below this (int64 and uint64).
_RR_BOUND = 2**62
#: Largest set of labels randomized response draws from.
MAX_RR_SET = 1024
#: Digits of the decimal arithmetic that bounds ln(D/m); far beyond a double's 17.
_DECIMAL = Context(prec=50)


def uniform_integers(
    bounds: np.ndarray, mode: str, rng: np.random.Generator, source: Source | None = None
) -> np.ndarray:
    """Exactly uniform integers in [0, bound) per element, from ``rng`` or from a secure source."""
    bounds = np.asarray(bounds, dtype=np.int64)
    if check_noise(mode) == "secure":
        return uniform_below(bounds, source or SecureSource())
    return check_rng(rng).integers(0, bounds)


def check_plan(plan: object, kind: type[_Plan], builder: str) -> _Plan:
    """``plan`` if it is a ``kind``; otherwise a clear error naming the function that builds one."""
    if not isinstance(plan, kind):
        raise InvalidInputError(
            f"plan must be a {kind.__name__} (build one with {builder}), got {type(plan).__name__}"
        )
    return plan


def mode_details(mode: str) -> dict[str, str]:
    """The details entries every plan of ``mode`` shares: the bits' source and what it means."""
    if check_noise(mode) == "secure":
        return {
            "noise_mode": "secure",
            "noise_source": SECURE_SOURCE,
            "noise_mode_meaning": (
                "every random draw of the release comes from os.urandom: exact integer noise "
                "(Canonne, Kamath, Steinke 2020) on integer data, exact rational coins, no "
                "floating-point leak (Mironov 2012) and nothing to replay from the seed; scales "
                "are rounded up, so epsilon_spent is what the exact noise guarantees, at most "
                "the epsilon asked for"
            ),
        }
    return {
        "noise_mode": "float",
        "noise_source": FLOAT_SOURCE,
        "noise_mode_meaning": (
            "reproducible from the seed, so whoever knows the seed can replay the draws, and "
            "continuous noise leaks through its low-order bits (Mironov 2012): for teaching and "
            "comparison; use noise=secure for a release"
        ),
    }


@dataclass(frozen=True)
class LaplacePlan:
    """Laplace noise of one scale for an L1 sensitivity, in one mode; its epsilon is Δ/b.

    Attributes:
        mode: ``float`` or ``secure``.
        sensitivity: Δ, the L1 change of the noised query between neighbours.
        scale: b, the scale the draws have (secure: the exact fraction, as a double).
        exact_scale: the fraction the secure sampler uses (None in float mode).
    """

    mode: str
    sensitivity: float
    scale: float
    exact_scale: Fraction | None = None

    @property
    def secure(self) -> bool:
        """Whether the draws are exact and come from os.urandom."""
        return self.mode == "secure"

    @property
    def epsilon_spent(self) -> float:
        """Δ/b in exact arithmetic, rounded up to a double: the loss of the noise drawn."""
        scale = self.exact_scale if self.exact_scale is not None else Fraction(self.scale)
        return guaranteed_epsilon(self.sensitivity, scale)

    def draw(
        self, shape: tuple[int, ...], rng: np.random.Generator, source: Source | None = None
    ) -> np.ndarray:
        """The mode's noise for integer data: exact integers (secure) or continuous (float)."""
        return self.discrete(shape, rng, source) if self.secure else self.continuous(shape, rng)

    def continuous(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Continuous Laplace noise of scale b (float mode only: secure noise is integer)."""
        if self.secure:
            raise InvalidInputError(
                "secure noise is exact integer noise for integer data; this release adds noise "
                "to real numbers, so use noise=float"
            )
        return check_rng(rng).laplace(0.0, self.scale, size=shape)

    def discrete(
        self, shape: tuple[int, ...], rng: np.random.Generator, source: Source | None = None
    ) -> np.ndarray:
        """Integer noise with P(z) proportional to e^(-|z|/b), int64.

        Secure: the exact sampler on os.urandom (or ``source``, for tests). Float: the difference
        of two geometric draws of ``rng`` with success probability 1 - e^(-1/b).
        """
        size = int(np.prod(shape))
        if self.secure:
            draws = discrete_laplace(self.exact_scale, size, source or SecureSource())
            return draws.reshape(shape)
        success = float(-np.expm1(-1.0 / self.scale))
        first = check_rng(rng).geometric(success, size=shape)
        return (first - rng.geometric(success, size=shape)).astype(np.int64)

    def describe(self, what: str, *, discrete: bool = False) -> dict[str, Any]:
        """Details entries: the mode, the bits' source, the distribution of ``what`` and b.

        ``discrete`` says that ``what`` gets :meth:`discrete` noise in float mode too.
        """
        kind = "discrete Laplace" if discrete else "Laplace"
        if self.secure:
            kind = "exact discrete Laplace (secure, os.urandom)"
        scale = f"{self.exact_scale}" if self.secure else f"{self.scale:.6g}"
        details: dict[str, Any] = mode_details(self.mode) | {
            "noise_distribution": f"{what}: {kind}, scale {scale}",
        }
        if self.secure:
            details["noise_scale_exact"] = str(self.exact_scale)
        return details


def laplace_plan(sensitivity: float, epsilon: float, mode: str = "float") -> LaplacePlan:
    """Laplace noise calibrated so that Δ/b spends at most ``epsilon``, exactly.

    Secure: b is Δ/ε rounded up to a fraction (:func:`rational_scale`). Float: b = Δ/ε, raised
    by one unit in the last place where the rounded division made Δ/b exceed ε.

    >>> plan = laplace_plan(2.0, 3.7)
    >>> plan.epsilon_spent <= 3.7 < 2.0 / (2.0 / 3.7)
    True
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    if check_noise(mode) == "secure":
        exact = rational_scale(sensitivity, epsilon)
        return LaplacePlan(mode, sensitivity, float(exact), exact)
    scale = sensitivity / epsilon
    while Fraction(sensitivity) / Fraction(scale) > Fraction(epsilon):
        scale = float(np.nextafter(scale, math.inf))
    return LaplacePlan(mode, sensitivity, scale)


def laplace_plan_for_scale(
    scale: float, mode: str = "float", sensitivity: float = 2.0
) -> LaplacePlan:
    """Laplace noise of a given scale (PATE's LNMax), rounded up to a fraction in secure mode."""
    scale = float(check_positive(scale, "laplace scale"))
    sensitivity = float(check_positive(sensitivity, "sensitivity"))
    if check_noise(mode) == "secure":
        exact = rational_at_least(scale)
        return LaplacePlan(mode, sensitivity, float(exact), exact)
    return LaplacePlan(mode, sensitivity, scale)


@dataclass(frozen=True)
class GaussianPlan:
    """Gaussian noise of one standard deviation, in one mode (PATE's GNMax and threshold check).

    Attributes:
        mode: ``float`` or ``secure``.
        sigma: the standard deviation an accountant should use: the exact sigma in float mode,
            and in secure mode the square root of the exact variance rounded *down* (a smaller
            sigma never understates the privacy loss).
        exact_variance: sigma^2 of the secure discrete Gaussian, a fraction (None in float mode).
    """

    mode: str
    sigma: float
    exact_variance: Fraction | None = None

    @property
    def secure(self) -> bool:
        """Whether the draws are exact and come from os.urandom."""
        return self.mode == "secure"

    def draw(
        self, shape: tuple[int, ...], rng: np.random.Generator, source: Source | None = None
    ) -> np.ndarray:
        """Gaussian noise (float) or exact discrete Gaussian noise (secure, int64); 0 if sigma 0."""
        if self.sigma == 0:
            return np.zeros(shape, dtype=np.int64 if self.secure else np.float64)
        if self.secure:
            size = int(np.prod(shape))
            draws = discrete_gaussian_of_variance(self.exact_variance, size, source)
            return draws.reshape(shape)
        return check_rng(rng).normal(0.0, self.sigma, size=shape)

    def describe(self, what: str) -> dict[str, Any]:
        """Details entries: the mode, the bits' source, the distribution of ``what``."""
        if not self.secure:
            distribution = f"{what}: Gaussian, sigma = {self.sigma:.6g}"
            return mode_details(self.mode) | {"noise_distribution": distribution}
        return mode_details(self.mode) | {
            "noise_distribution": (
                f"{what}: exact discrete Gaussian (secure, os.urandom), "
                f"sigma^2 = {self.exact_variance}"
            ),
            "noise_variance_exact": str(self.exact_variance),
        }


def _sqrt_at_most(value: Fraction) -> float:
    root = math.sqrt(float(value))
    while Fraction(root) ** 2 > value:
        root = float(np.nextafter(root, 0.0))
    return root


def gaussian_plan(sigma: float, mode: str = "float") -> GaussianPlan:
    """Gaussian noise of standard deviation ``sigma`` (0 adds none); secure rounds sigma^2 up."""
    if isinstance(sigma, bool) or not isinstance(sigma, int | float | np.number):
        raise InvalidInputError(f"sigma must be a number, got {sigma!r}")
    sigma = float(sigma)
    if not math.isfinite(sigma) or sigma < 0:
        raise InvalidInputError(f"sigma must be a finite number >= 0, got {sigma}")
    if check_noise(mode) == "secure" and sigma > 0:
        variance = rational_variance(sigma)
        return GaussianPlan(mode, _sqrt_at_most(variance), variance)
    return GaussianPlan(mode, sigma)


@dataclass(frozen=True)
class RandomizedResponsePlan:
    """Randomized response's coins at one epsilon: exact rational keep probabilities.

    Inside a set of k labels the true label is kept with probability D / (D + (k-1) m), and each
    other member is reported with probability m / (D + (k-1) m): the ratio is D/m <= e^ε.

    Attributes:
        mode: ``float`` (coins from the run's generator) or ``secure`` (from os.urandom).
        denominator: D.
        flip_weight: m, with m / D = e^-ε rounded up on the grid of 1/D (at least 1).
        max_set_size: the largest set the coins choose in (K for K-ary randomized response).
        epsilon: the budget the coins were calibrated for (RR-with-prior chooses its label sets
            for it); what they spend is :attr:`epsilon_spent`, at most this.
    """

    mode: str
    denominator: int
    flip_weight: int
    max_set_size: int
    epsilon: float

    @property
    def secure(self) -> bool:
        """Whether the coins come from os.urandom."""
        return self.mode == "secure"

    @property
    def epsilon_spent(self) -> float:
        """ln(D/m), computed to 50 digits and rounded up to a double."""
        return float_at_least(_log_ratio(self.denominator, self.flip_weight))

    def keep_probability(self, set_sizes: np.ndarray | int) -> np.ndarray:
        """D / (D + (k-1) m) per set size k, as doubles (for closed forms and figures)."""
        sizes = np.asarray(set_sizes, dtype=np.float64)
        return self.denominator / (self.denominator + (sizes - 1.0) * self.flip_weight)

    def keep(
        self, set_sizes: np.ndarray, rng: np.random.Generator, source: Source | None = None
    ) -> np.ndarray:
        """One exact coin per example: True (keep) with probability D / (D + (k-1) m)."""
        sizes = np.asarray(set_sizes, dtype=np.int64)
        if sizes.size and (sizes.min() < 1 or sizes.max() > self.max_set_size):
            raise InvalidInputError(
                f"this plan's randomized response sets hold 1..{self.max_set_size} labels, got "
                f"{sizes.min()}..{sizes.max()}"
            )
        bounds = self.denominator + (sizes - 1) * self.flip_weight
        return self.below(bounds, rng, source) < self.denominator

    def below(
        self, bounds: np.ndarray, rng: np.random.Generator, source: Source | None = None
    ) -> np.ndarray:
        """Exactly uniform integers in [0, bound) per element, from this plan's source of bits."""
        return uniform_integers(bounds, self.mode, rng, source)

    def describe(self, what: str) -> dict[str, Any]:
        """Details entries: the mode, the bits' source and the exact keep ratio of ``what``."""
        return mode_details(self.mode) | {
            "noise_distribution": (
                f"{what}: exact rational coins, keep : each other = D : m with "
                f"D = 2^{self.denominator.bit_length() - 1}, m = {self.flip_weight} "
                f"(ratio e^{self.epsilon_spent:.17g})"
            ),
        }


def _log_ratio(denominator: int, flip_weight: int) -> Decimal:
    """An upper bound of ln(D/m): 50-digit logarithms plus a margin far above their error."""
    exact = _DECIMAL.ln(Decimal(denominator)) - _DECIMAL.ln(Decimal(flip_weight))
    return exact + Decimal("1e-40")


def rr_plan(epsilon: float, max_set_size: int, mode: str = "float") -> RandomizedResponsePlan:
    """Randomized response's coins with ratio D/m <= e^ε and ``epsilon_spent`` <= ε, exactly.

    Args:
        epsilon: the budget of one label's release.
        max_set_size: the largest set the coins choose in (K for K-ary randomized response);
            it fixes D, the largest power of two with ``max_set_size`` D <= 2^62.
        mode: ``float`` or ``secure``.

    Beyond ε = ln(D) (40.2 for K = 10) m stays at 1 and the plan spends ln(D) < ε: each other
    label is then reported with probability below 2^-58, as good as never.

    >>> plan = rr_plan(1.0, 10)
    >>> plan.epsilon_spent <= 1.0, round(plan.epsilon_spent, 15)
    (True, 1.0)
    """
    epsilon = check_epsilon(epsilon)
    check_noise(mode)
    size = int(check_positive(max_set_size, "max_set_size", integer=True))
    if size > MAX_RR_SET:
        raise InvalidInputError(
            f"randomized response over at most {MAX_RR_SET} labels is supported, got {size}"
        )
    denominator = 2 ** (_RR_BOUND.bit_length() - 1 - (size - 1).bit_length())

    def within(flip: int) -> bool:
        return float_at_least(_log_ratio(denominator, flip)) <= epsilon

    # Start from the double e^-ε D, then move to the smallest m whose bound stays within ε.
    flip = max(1, math.ceil(math.exp(-epsilon) * denominator))
    while not within(flip):
        flip += 1
    while flip > 1 and within(flip - 1):
        flip -= 1
    return RandomizedResponsePlan(mode, denominator, flip, size, epsilon)
