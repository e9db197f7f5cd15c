"""LabelDP-Pro's accounting: DP-SGD's accountant, read for a changed label by group privacy.

Changing one label changes one example's clipped gradient in the step's Poisson batch, while the
batch itself (drawn without reading labels) keeps its law. Changing the label is removing the
example and adding it back relabelled, two add/remove neighbours, so an (eps, delta) add/remove
guarantee of DP-SGD's accountant (RDP or PRV, :mod:`labeldp_core.accounting.dpsgd`) gives
(2 eps, (1 + e^eps) delta) for a changed label (:mod:`labeldp_core.accounting.units`). The
runner calibrates DP-SGD to eps / 2 at delta / (1 + e^(eps / 2)), so the label guarantee spends
at most (eps, delta). A tighter analysis of Poisson subsampling under substitution would spend
less noise (about the same in the small-eps regime, where eps is nearly linear in 1 / sigma).
"""

import math

from labeldp_core.accounting.dpsgd import calibrate_noise_multiplier, check_delta, dpsgd_epsilon
from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.validation import check_epsilon

__all__ = ["calibrate_label_noise", "example_budget", "label_epsilon"]


def example_budget(epsilon: float, delta: float) -> tuple[float, float]:
    """The add/remove (eps, delta) whose group-of-two reading is the label's (epsilon, delta).

    >>> example_budget(1.0, 1e-5)[0]
    0.5
    """
    half = check_epsilon(epsilon) / 2
    return half, check_delta(delta) / (1 + math.exp(half))


def label_epsilon(
    noise_multiplier: float, sample_rate: float, steps: int, example_delta: float, accountant: str
) -> tuple[float, float]:
    """The label-level (epsilon, delta) of a run accounted add/remove at ``example_delta``."""
    spent = dpsgd_epsilon(noise_multiplier, sample_rate, steps, example_delta, accountant)
    return label_guarantee_of_example(spent, example_delta)


def calibrate_label_noise(
    epsilon: float, delta: float, sample_rate: float, steps: int, accountant: str = "rdp"
) -> float:
    """The noise multiplier whose label-level epsilon, by ``accountant``, is at most ``epsilon``."""
    half, example_delta = example_budget(epsilon, delta)
    return calibrate_noise_multiplier(half, example_delta, sample_rate, steps, accountant)
