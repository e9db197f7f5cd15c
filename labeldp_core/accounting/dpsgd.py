"""DP-SGD accounting: the epsilon a run spends, and the noise multiplier a target epsilon needs.

Privacy unit: one whole training example (image and label), add/remove neighbours. A run of
``steps`` steps, each sampling every example with probability ``sample_rate`` (Poisson) and adding
Gaussian noise of ``noise_multiplier`` times the clipping norm to the clipped gradient sum, is
(epsilon, delta)-DP with the epsilon these functions compute. The clipping norm itself does not
enter: it sets the scale of gradients and noise alike.
"""

import math
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from numbers import Integral, Real

from labeldp_core.accounting.replace_one import pld_replace_one_epsilon
from labeldp_core.accounting.sampled_gaussian import (
    PrvTooLargeError,
    prv_epsilon,
    rdp_epsilon,
    rdp_per_step,
    rdp_to_epsilon,
)
from labeldp_core.base.validation import check_epsilon
from labeldp_core.errors import InvalidInputError

__all__ = [
    "ACCOUNTANTS",
    "CALIBRATION_RTOL",
    "REPLACE_ONE_ACCOUNTANTS",
    "calibrate_noise_multiplier",
    "check_clip",
    "check_delta",
    "check_noise_multiplier",
    "check_sample_rate",
    "check_steps",
    "check_training_schedule",
    "dpsgd_epsilon",
    "dpsgd_epsilon_curve",
    "sampling_schedule",
]

ACCOUNTANTS: dict[str, Callable[[float, float, int, float], float]] = {
    "rdp": rdp_epsilon,
    "prv": prv_epsilon,
}
#: Accountants for neighbours that replace one example's clipped gradient by another, its
#: inclusion coin unchanged (a changed label): the label mechanisms' relation, not DP-SGD's.
REPLACE_ONE_ACCOUNTANTS: dict[str, Callable[[float, float, int, float], float]] = {
    "pld-replace-one": pld_replace_one_epsilon,
}
_ALL_ACCOUNTANTS = ACCOUNTANTS | REPLACE_ONE_ACCOUNTANTS

#: Calibration stops once the accountant's epsilon lies in [target (1 - CALIBRATION_RTOL), target].
CALIBRATION_RTOL = 0.01

#: No useful epsilon needs more noise than this (epsilon is then below 1e-4 for any run).
_MAX_NOISE_MULTIPLIER = 1e5


def _finite_number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise InvalidInputError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_noise_multiplier(noise_multiplier: object) -> float:
    """Return the noise multiplier after checking it is a finite number above 0."""
    value = _finite_number(noise_multiplier, "noise_multiplier")
    if value <= 0:
        raise InvalidInputError(
            f"noise_multiplier must be greater than 0, got {value}; without noise DP-SGD has no "
            "privacy guarantee, so use e.g. noise_multiplier=1 (more noise, more privacy)"
        )
    return value


def check_sample_rate(sample_rate: object) -> float:
    """Return the sample rate after checking it lies in (0, 1]."""
    value = _finite_number(sample_rate, "sample_rate")
    if not 0 < value <= 1:
        raise InvalidInputError(
            f"sample_rate must lie in (0, 1], got {value}; it is the expected batch size divided "
            "by the number of training examples, so use a batch no larger than the training set"
        )
    return value


def check_delta(delta: object) -> float:
    """Return delta after checking it lies in (0, 1)."""
    value = _finite_number(delta, "delta")
    if not 0 < value < 1:
        raise InvalidInputError(
            f"delta must lie in (0, 1), got {value}; it bounds the chance that the epsilon "
            "guarantee fails, so use a value well below 1/(training examples), e.g. delta=1e-5"
        )
    return value


def check_clip(clip: object) -> float:
    """Return the clipping norm after checking it is a finite number above 0."""
    value = _finite_number(clip, "clip")
    if value <= 0:
        raise InvalidInputError(
            f"clip (the bound on each example's gradient norm) must be greater than 0, "
            f"got {value}; use e.g. clip=1"
        )
    return value


def check_steps(steps: object) -> int:
    """Return the number of steps after checking it is a whole number of at least 1."""
    if isinstance(steps, bool) or not isinstance(steps, Integral) or steps < 1:
        raise InvalidInputError(
            f"steps must be a whole number of at least 1, got {steps!r}; a run of E epochs "
            "with sample rate q takes about E/q steps"
        )
    return int(steps)


def _check_accountant(accountant: object) -> str:
    if accountant not in _ALL_ACCOUNTANTS:
        raise InvalidInputError(
            f"unknown accountant {accountant!r}; choose one of: {', '.join(_ALL_ACCOUNTANTS)}"
        )
    return str(accountant)


def _epsilon(accountant: str, noise_multiplier: float, q: float, steps: int, delta: float) -> float:
    try:
        return _ALL_ACCOUNTANTS[accountant](q, noise_multiplier, steps, delta)
    except PrvTooLargeError:
        raise
    except (ValueError, RuntimeError) as exc:
        raise InvalidInputError(
            f"the {accountant} accountant cannot compute epsilon for noise_multiplier="
            f"{noise_multiplier:g}, sample_rate={q:g}, steps={steps}, delta={delta:g} ({exc}); "
            "use accountant=rdp or a larger delta"
        ) from None


def dpsgd_epsilon(
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    delta: float,
    accountant: str = "rdp",
) -> float:
    """Epsilon spent by DP-SGD after ``steps`` steps, for add/remove-one-example neighbours.

    Under a replace-one accountant (:data:`REPLACE_ONE_ACCOUNTANTS`) the epsilon is for
    neighbours that change one example's gradient and keep its inclusion coin (a changed label).

    Args:
        noise_multiplier: sigma, the noise standard deviation over the clipping norm.
        sample_rate: q, the probability that a step samples a given example (Poisson sampling).
        steps: the number of noisy steps taken.
        delta: the delta of the (epsilon, delta) guarantee, in (0, 1).
        accountant: ``"rdp"`` (Renyi DP, a little loose) or ``"prv"`` (numerical composition of
            privacy loss random variables, tighter), add/remove; ``"pld-replace-one"``
            (dp_accounting's privacy loss distributions, replace-one).

    Returns:
        The epsilon the accountant computes (an upper bound on the true one).

    >>> round(dpsgd_epsilon(1.0, 256 / 60000, 1175, 1e-5), 3)
    1.133
    """
    return _epsilon(
        _check_accountant(accountant),
        check_noise_multiplier(noise_multiplier),
        check_sample_rate(sample_rate),
        check_steps(steps),
        check_delta(delta),
    )


def dpsgd_epsilon_curve(
    noise_multiplier: float, sample_rate: float, steps: Sequence[int], delta: float
) -> list[float]:
    """RDP epsilon after each number of steps in ``steps``: one RDP evaluation for the whole curve.

    Renyi divergences add up over steps, so the per-step RDP is computed once and scaled.
    """
    sigma = check_noise_multiplier(noise_multiplier)
    q = check_sample_rate(sample_rate)
    delta = check_delta(delta)
    per_step = rdp_per_step(q, sigma)
    return [rdp_to_epsilon(check_steps(count) * per_step, delta) for count in steps]


def sampling_schedule(n_examples: int, batch_size: int, epochs: int) -> tuple[float, int]:
    """Sample rate and number of steps of ``epochs`` passes with expected batch ``batch_size``.

    Poisson sampling draws each example with probability q = batch_size / n_examples, so one
    epoch, ceil(n / batch_size) steps, looks at every example about once in expectation.
    """
    for value, name in ((n_examples, "n_examples"), (batch_size, "batch"), (epochs, "epochs")):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise InvalidInputError(f"{name} must be a whole number of at least 1, got {value!r}")
    if batch_size > n_examples:
        raise InvalidInputError(
            f"batch={batch_size} is larger than the {n_examples} training examples, so the "
            f"sample rate would exceed 1; use a batch of at most {n_examples}"
        )
    return batch_size / n_examples, int(epochs) * math.ceil(n_examples / batch_size)


def check_training_schedule(
    clip: float, delta: float, n_examples: int, batch_size: int, epochs: int
) -> None:
    """Check a Poisson-sampled run's clip, delta and schedule before it trains (clear errors)."""
    check_clip(clip)
    check_delta(delta)
    sampling_schedule(n_examples, batch_size, epochs)


def calibrate_noise_multiplier(
    target_epsilon: float,
    delta: float,
    sample_rate: float,
    steps: int,
    accountant: str = "rdp",
) -> float:
    """The noise multiplier at which the accountant's epsilon just meets the target.

    Epsilon falls as sigma grows; the answer's epsilon, as the same accountant computes it, lies
    in [target (1 - CALIBRATION_RTOL), target], so the run never spends more than asked.

    >>> round(calibrate_noise_multiplier(1.0, 1e-5, 256 / 60000, 1175), 2)
    1.07
    """
    return _calibrated(
        check_epsilon(target_epsilon, "target epsilon"),
        check_delta(delta),
        check_sample_rate(sample_rate),
        check_steps(steps),
        _check_accountant(accountant),
    )


@lru_cache(maxsize=256)
def _calibrated(target: float, delta: float, q: float, steps: int, accountant: str) -> float:
    # Aim at the middle of the window [target (1 - rtol), target]; solve on log sigma, where
    # epsilon is smooth and close to linear, with Brent's method (a handful of evaluations).
    goal = target * (1 - CALIBRATION_RTOL / 2)

    @cache
    def spent(sigma: float) -> float:
        return _epsilon(accountant, sigma, q, steps, delta)

    def bounded_spent(sigma: float) -> float:
        # Below the RDP answer the PRV grid grows fast. A sigma too small to account for within
        # PRV_MAX_POINTS counts as too little noise: the search may then settle on more noise
        # than PRV would allow, never on less (the answer's epsilon is still PRV's own).
        try:
            return spent(sigma)
        except PrvTooLargeError:
            if accountant == "rdp" or sigma >= start:
                raise
            return math.inf

    def excess(log_sigma: float) -> float:
        return min(bounded_spent(math.exp(log_sigma)), 1e6) - goal

    # PRV is the tighter accountant, so the RDP answer is a good upper end to start from.
    start = 1.0 if accountant == "rdp" else _calibrated(target, delta, q, steps, "rdp")
    low = high = math.log(start)
    while excess(high) > 0:  # too little noise: double sigma
        low, high = high, high + math.log(2)
        if high > math.log(_MAX_NOISE_MULTIPLIER):
            raise InvalidInputError(
                f"no noise multiplier up to {_MAX_NOISE_MULTIPLIER:g} reaches epsilon={target:g} "
                "in this many steps; use a larger epsilon, fewer epochs or a smaller batch"
            )
    while low == high or excess(low) <= 0:  # the start had enough noise: halve to bracket
        low, high = low - math.log(2), low
    from scipy.optimize import brentq  # here: a quarter second no other command needs

    sigma = math.exp(brentq(excess, low, high, xtol=1e-6))
    # A numerical accountant may be a little rough; step up until within the target.
    while spent(sigma) > target:
        sigma *= 1 + CALIBRATION_RTOL / 10
    return sigma
