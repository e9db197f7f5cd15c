"""Privacy of the Poisson-subsampled Gaussian mechanism, the step DP-SGD repeats.

Pure adapters over Opacus's analysis (its RDP recomputed faster with the same numbers,
:mod:`labeldp_core.accounting.sgm_rdp`), with no state and no input checks (the thin functions in
:mod:`labeldp_core.accounting.dpsgd` check inputs). Each step samples every example with
probability ``q``, sums the clipped gradients of the sample and adds Gaussian noise of standard
deviation ``sigma`` times the clipping norm. The neighbouring relation is add/remove one example.

Two accountants:

- RDP (Mironov 2017; Mironov, Talwar, Zhang 2019): Renyi divergences at a grid of orders add up
  over steps, then the best order is converted to (epsilon, delta) with the improved bound of
  Balle et al. 2020 (Proposition 12 of arXiv 2004.00010). Cheap and slightly loose.
- PRV (Gopi, Lee, Wutschitz 2021): the privacy loss random variable of one step is discretised and
  composed numerically by FFT; Opacus returns an upper bound within ``PRV_EPSILON_ERROR``.
  Tighter than RDP, about ten times slower.

Opacus is imported inside the PRV functions: importing it loads all of Opacus (about 3 s of
CPU), which the command line, the app and the RDP accountant do not pay.
"""

import warnings
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from labeldp_core.accounting.rdp import epsilon_from_rdp
from labeldp_core.accounting.sgm_rdp import compute_rdp
from labeldp_core.errors import InvalidInputError

__all__ = [
    "PRV_EPSILON_ERROR",
    "PRV_MAX_POINTS",
    "RDP_ORDERS",
    "PrvTooLargeError",
    "prv_epsilon",
    "prv_grid_points",
    "rdp_epsilon",
    "rdp_per_step",
    "rdp_to_epsilon",
]

#: Renyi orders searched for the best conversion; the same grid as ``dp_accounting``'s default,
#: which extends Opacus's (up to 63) with large orders that matter for small epsilons.
RDP_ORDERS: tuple[float, ...] = (
    *(1 + x / 10 for x in range(1, 100)),
    *map(float, range(11, 64)),
    128.0,
    256.0,
    512.0,
    1024.0,
)

#: Absolute error allowed in the PRV accountant's epsilon; it reports the upper end.
PRV_EPSILON_ERROR = 0.01
#: Most grid points the PRV accountant may discretise onto. It needs about 170 bytes a point
#: (measured peak resident memory, torch and Opacus loaded: 706 MB at 0.6 million points,
#: 929 MB at 1.8 million, 1,464 MB at 5.2 million), and the grid grows fast as sigma falls: a
#: link asking epsilon 98 over 80 epochs took 10 GB. The project's settings up to epsilon 8
#: over 80 epochs need under 0.7 million.
PRV_MAX_POINTS = 2_000_000


class PrvTooLargeError(InvalidInputError):
    """The PRV accountant would need more than :data:`PRV_MAX_POINTS` grid points."""


def rdp_per_step(q: float, sigma: float, orders: Sequence[float] = RDP_ORDERS) -> np.ndarray:
    """Renyi DP of one subsampled Gaussian step at each order (composition adds these up).

    Opacus's values, bit for bit (:mod:`labeldp_core.accounting.sgm_rdp`), remembered per
    (q, sigma, orders) in this process: each fractional order is a series summed term by term
    (about 0.05 s for the default grid), and a page asks again on every rerun.

    >>> float(rdp_per_step(1.0, 2.0, [2.0])[0])  # no subsampling: alpha / (2 sigma^2)
    0.25
    """
    return _rdp_per_step(float(q), float(sigma), tuple(map(float, orders))).copy()


@lru_cache(maxsize=1024)
def _rdp_per_step(q: float, sigma: float, orders: tuple[float, ...]) -> np.ndarray:
    return np.asarray(compute_rdp(q, sigma, orders), dtype=np.float64)


def rdp_to_epsilon(rdp: np.ndarray, delta: float, orders: Sequence[float] = RDP_ORDERS) -> float:
    """The smallest epsilon over ``orders`` at which ``rdp`` gives (epsilon, delta)-DP.

    The project's one RDP conversion (:func:`labeldp_core.accounting.rdp.epsilon_from_rdp`, the
    bound Opacus and dp_accounting use) on this module's grid of orders.
    """
    return float(epsilon_from_rdp(rdp, delta, np.asarray(orders, dtype=np.float64))[0])


def rdp_epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    """Epsilon of ``steps`` subsampled Gaussian steps by the RDP accountant."""
    return rdp_to_epsilon(steps * rdp_per_step(q, sigma), delta)


def _prv_accountant(q: float, sigma: float, steps: int, delta: float) -> tuple[Any, int]:
    """Opacus's PRV accountant for ``steps`` steps, with its grid built once; the grid's size.

    Opacus builds the grid inside ``get_epsilon`` (``_get_domain``: the domain from an RDP bound,
    the mesh from the error allowed); building it here first lets the size be checked before
    any memory is spent, and the accountant then reuses it instead of building it again.
    """
    from opacus.accountants import PRVAccountant

    accountant = PRVAccountant()
    accountant.history = [(sigma, q, int(steps))]
    domain = _prv_domain(q, sigma, int(steps), PRV_EPSILON_ERROR, delta / 1000)
    accountant._get_domain = lambda **_: domain
    return accountant, int(domain.size)


def _prv_domain(q: float, sigma: float, steps: int, eps_error: float, delta_error: float) -> Any:
    """Opacus's PRV grid (``PRVAccountant._get_domain``) for one repeated step, bit for bit.

    The same arithmetic as Opacus 1.6's ``compute_safe_domain_size`` (Gopi, Lee, Wutschitz 2021,
    Remark 5.6: the domain's half-width from two RDP bounds) and mesh, with the RDP of one step
    taken from :func:`rdp_per_step` at Opacus's orders: the same numbers
    (:mod:`labeldp_core.accounting.sgm_rdp`), computed once per (q, sigma) instead of twice per
    grid in Opacus's slow series, which was 85% of a DP-SGD run's epsilon-by-epoch accounting.
    ``tests/accounting/test_dpsgd_accounting.py`` checks the grid against Opacus's own.
    """
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis.prv import Domain
    from opacus.accountants.analysis.rdp import get_privacy_spent

    orders = RDPAccountant.DEFAULT_ALPHAS
    per_step = rdp_per_step(q, sigma, orders)
    with warnings.catch_warnings():  # the bound warns when its best order is at the grid's end
        warnings.simplefilter("ignore")
        composed, _ = get_privacy_spent(orders=orders, rdp=per_step * steps, delta=delta_error / 4)
        one, _ = get_privacy_spent(orders=orders, rdp=per_step, delta=delta_error / (8 * steps))
    half_width = max(max(float(composed), float(one)), eps_error) + 3
    mesh = eps_error / np.sqrt(steps * np.log(12 / delta_error) / 2)
    return Domain.create_aligned(-half_width, half_width, mesh)


def prv_grid_points(q: float, sigma: float, steps: int, delta: float) -> int:
    """How many points the PRV accountant's grid has for these steps (Opacus's own grid)."""
    return _prv_accountant(q, sigma, steps, delta)[1]


def prv_epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    """Epsilon of ``steps`` subsampled Gaussian steps by the PRV accountant (an upper bound).

    Remembered per argument (and grid cap) in this process: a pure function, and seconds of
    work, since the grid's domain alone evaluates Opacus's RDP at every order.

    Raises:
        PrvTooLargeError: if the grid would have more than :data:`PRV_MAX_POINTS` points.
        ValueError, RuntimeError: where the numerical composition cannot reach ``delta`` (for
            example a delta so small that floating point error dominates).
    """
    return _prv_epsilon(float(q), float(sigma), int(steps), float(delta), PRV_MAX_POINTS)


@lru_cache(maxsize=1024)
def _prv_epsilon(q: float, sigma: float, steps: int, delta: float, cap: int) -> float:
    accountant, points = _prv_accountant(q, sigma, steps, delta)
    if points > cap:
        raise PrvTooLargeError(
            f"the PRV accountant would need {points:,} grid points at noise multiplier "
            f"{sigma:.3g} over {steps:,} steps (at most {cap:,}: several GB of "
            "memory); use accountant=rdp, or a smaller epsilon, fewer epochs or a larger delta"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(accountant.get_epsilon(delta, eps_error=PRV_EPSILON_ERROR))
