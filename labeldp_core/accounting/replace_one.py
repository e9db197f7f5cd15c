"""The Poisson-subsampled Gaussian under replace-one neighbours, by privacy loss distributions.

When only an example's label changes, its inclusion coin is the same in both worlds: the step's
output is (1 - q) mu_0 + q (mu_0 shifted by a) against (1 - q) mu_0 + q (mu_0 shifted by b),
where a and b are the example's two clipped gradients (norms at most C) and mu_0 the law of the
other examples' sum plus N(0, (sigma C)^2 I). dp_accounting's ``REPLACE_ONE`` relation composes
the one-dimensional pair q N(-C, (sigma C)^2) + (1 - q) N(0, .) against q N(C, .) + (1 - q)
N(0, .) (its ``GaussianPrivacyLoss`` with ``sampling_prob``), numerically by FFT
(Koskela, Jalko, Honkela 2020; Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022). Why that
pair bounds the vector step is the LabelDP-Pro family README's (a reduction to two dimensions,
whose last step is checked numerically by the family's tests, not proved).

The PLD's discretisation is pessimistic (its epsilon is an upper bound); the interval is 1e-3
where the epsilon is at least 0.5 and 1e-4 below it, so its rounding costs at most about 0.2%
of the epsilon (calibration leaves 1% anyway) and large epsilons, whose distributions are
wide, stay fast (about 0.1 to 0.4 s instead of 1 to 4 s at 1e-4).
"""

from functools import lru_cache

__all__ = ["COARSE_INTERVAL", "FINE_INTERVAL", "pld_replace_one_epsilon"]

#: The PLD's value discretisation interval where epsilon is at least 0.5, and below it.
COARSE_INTERVAL, FINE_INTERVAL = 1e-3, 1e-4


def pld_replace_one_epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    """Epsilon of ``steps`` Poisson-subsampled Gaussian steps for replace-one neighbours.

    Args:
        q: the sampling probability of each step.
        sigma: the noise multiplier (noise standard deviation over the clip).
        steps: the number of steps composed.
        delta: the delta of the guarantee.

    >>> round(pld_replace_one_epsilon(1024 / 60000, 2.195, 295, 1e-5), 2)
    1.0
    """
    return _epsilon(float(q), float(sigma), int(steps), float(delta))


@lru_cache(maxsize=1024)
def _epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    coarse = _at_interval(q, sigma, steps, delta, COARSE_INTERVAL)
    if coarse >= 0.5:
        return coarse
    return min(coarse, _at_interval(q, sigma, steps, delta, FINE_INTERVAL))


def _at_interval(q: float, sigma: float, steps: int, delta: float, interval: float) -> float:
    # Imported here: dp_accounting pulls in scipy's stats and its own modules (about a second).
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(
        dp_accounting.NeighboringRelation.REPLACE_ONE, value_discretization_interval=interval
    )
    step = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(step, steps)
    return float(accountant.get_epsilon(delta))
