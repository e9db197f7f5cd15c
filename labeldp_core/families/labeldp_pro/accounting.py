"""LabelDP-Pro's accounting: a changed label, replace-one, or DP-SGD's add/remove by group privacy.

Changing one label changes one example's clipped gradient in the step's Poisson batch, while the
batch itself (drawn without reading labels) keeps its law. Two readings:

- ``pld-replace-one`` (offered, not the default): the step is the replace-one pair of the
  Poisson-subsampled Gaussian, composed by dp_accounting's privacy loss distributions
  (:mod:`labeldp_core.accounting.replace_one`); the run calibrates sigma to (eps, delta) itself.
  Why the one-dimensional pair bounds vector gradients is the family README's argument (its
  last step checked numerically, not proved).
- ``rdp`` (the default) / ``prv``: changing the label is removing the example and adding it
  back relabelled, two add/remove neighbours, so an (eps, delta) add/remove guarantee of
  DP-SGD's accountant (:mod:`labeldp_core.accounting.dpsgd`) gives (2 eps, (1 + e^eps) delta)
  for a changed label (:mod:`labeldp_core.accounting.units`). The run calibrates DP-SGD to
  eps / 2 at delta / (1 + e^(eps / 2)), about twice the noise the replace-one reading needs.
"""

import math

from labeldp_core.accounting.dpsgd import (
    ACCOUNTANTS,
    REPLACE_ONE_ACCOUNTANTS,
    calibrate_noise_multiplier,
    check_delta,
    dpsgd_epsilon,
)
from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.base.validation import check_epsilon

__all__ = [
    "LABEL_ACCOUNTANTS",
    "REPLACE_ONE",
    "accounted_budget",
    "calibrate_label_noise",
    "label_epsilon",
]

#: The replace-one accountant: a changed label's own pair (offered; its vector step is checked
#: numerically, not proved, so ``rdp`` stays the default).
REPLACE_ONE = "pld-replace-one"
#: The accountants a label run may ask for, the replace-one reading first.
LABEL_ACCOUNTANTS: tuple[str, ...] = (*REPLACE_ONE_ACCOUNTANTS, *ACCOUNTANTS)


def accounted_budget(epsilon: float, delta: float, accountant: str) -> tuple[float, float]:
    """The (eps, delta) ``accountant`` is asked for, so a changed label spends (epsilon, delta).

    Replace-one: the label's own budget. Add/remove: the budget whose group-of-two reading is it.

    >>> accounted_budget(1.0, 1e-5, "rdp")[0], accounted_budget(1.0, 1e-5, "pld-replace-one")
    (0.5, (1.0, 1e-05))
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    if accountant in REPLACE_ONE_ACCOUNTANTS:
        return epsilon, delta
    return epsilon / 2, delta / (1 + math.exp(epsilon / 2))


def label_epsilon(
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    accounted_delta: float,
    accountant: str,
) -> tuple[float, float]:
    """A run's label-level (epsilon, delta), accounted by ``accountant`` at ``accounted_delta``."""
    spent = dpsgd_epsilon(noise_multiplier, sample_rate, steps, accounted_delta, accountant)
    if accountant in REPLACE_ONE_ACCOUNTANTS:
        return spent, accounted_delta
    return label_guarantee_of_example(spent, accounted_delta)


def calibrate_label_noise(
    epsilon: float, delta: float, sample_rate: float, steps: int, accountant: str = "rdp"
) -> float:
    """The noise multiplier whose label-level epsilon, by ``accountant``, is at most ``epsilon``."""
    target, accounted_delta = accounted_budget(epsilon, delta, accountant)
    return calibrate_noise_multiplier(target, accounted_delta, sample_rate, steps, accountant)
