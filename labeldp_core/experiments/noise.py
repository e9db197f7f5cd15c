"""The ``noise`` setting shared by the mechanisms that add noise to integer data.

``float`` draws NumPy's floating-point noise from the run's seeded generator (reproducible by
seed). ``secure`` adds exact discrete Laplace or discrete Gaussian noise to the integer data
(one-hot vectors, integer labels, label counts, vote counts), drawn from os.urandom, so the
noise is not reproducible from the seed; the scale is rounded up to a fraction and the epsilon
reported is the one that exact scale guarantees (at most the one asked for).
"""

from fractions import Fraction
from typing import Any

from labeldp_core.accounting import BudgetSplit, split_budget
from labeldp_core.experiments.spec import Setting
from labeldp_core.mechanisms.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.mechanisms.secure_noise import NOISE_KINDS, guaranteed_epsilon, rational_scale

__all__ = ["NOISE_SETTING", "SECURE_SOURCE", "histogram_split", "noise_details"]

NOISE_SETTING = Setting(
    "float",
    "noise sampler: float (NumPy's floating-point noise, seeded) or secure (exact discrete noise "
    "on the integer data from os.urandom; not reproducible from the seed)",
    NOISE_KINDS,
)
#: Where secure noise comes from, as the details say it.
SECURE_SOURCE = "os.urandom (the operating system's cryptographic generator)"


def noise_details(
    mode: str, distribution: str, exact_scale: Fraction | str | None
) -> dict[str, Any]:
    """Details entries saying which noise a run used and, for secure noise, its exact scale.

    Args:
        mode: ``float`` or ``secure``.
        distribution: what was added, e.g. "discrete Laplace, scale b per coordinate".
        exact_scale: the rational scale the secure sampler used (or a sentence giving each
            exact sigma^2); None for float.
    """
    details: dict[str, Any] = {"noise_mode": mode, "noise_distribution": distribution}
    if mode == "secure":
        details["noise_source"] = SECURE_SOURCE
        if exact_scale is not None:
            details["noise_scale_exact"] = str(exact_scale)
        details["noise_mode_meaning"] = (
            "exact integer noise (Canonne, Kamath, Steinke 2020) on integer data: no "
            "floating-point leak (Mironov 2012); the scale is rounded up to a fraction, so "
            "epsilon_spent is what that exact scale guarantees, at most the epsilon asked for"
        )
    else:
        details["noise_source"] = "NumPy generator seeded by the run's seed"
        details["noise_mode_meaning"] = (
            "floating-point noise: reproducible from the seed, but its low-order bits can leak "
            "the input (Mironov 2012); use noise=secure for releases"
        )
    return details


def histogram_split(planned: BudgetSplit, noise: str) -> tuple[BudgetSplit, Fraction | None]:
    """The budget split after a noisy label histogram drawn at ``planned.prior_epsilon``.

    Float noise spends exactly the planned prior budget. Secure noise rounds the histogram's
    scale up to a fraction, which spends a little less; the release then gets exactly what is
    left of the total (sequential composition), so the two steps still add up to the total.

    Returns:
        The split actually spent and, for secure noise with a prior, the histogram's exact scale.
    """
    if noise != "secure" or planned.prior_epsilon == 0:
        return planned, None
    exact = rational_scale(HISTOGRAM_SENSITIVITY, planned.prior_epsilon)
    return split_budget(planned.total, guaranteed_epsilon(HISTOGRAM_SENSITIVITY, exact)), exact
