"""dp_accounting's own PLD epsilon of Poisson-subsampled Gaussian steps: the tests' reference."""

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant


def google_pld_epsilon(
    sigma: float,
    q: float,
    steps: int,
    delta: float,
    relation: dp_accounting.NeighboringRelation,
    interval: float = 1e-4,
) -> float:
    """Epsilon of ``steps`` steps at rate ``q`` and noise ``sigma`` for ``relation`` neighbours."""
    accountant = pld_privacy_accountant.PLDAccountant(
        relation, value_discretization_interval=interval
    )
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(accountant.get_epsilon(delta))
