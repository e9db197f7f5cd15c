"""PATE's privacy accounting: per-query Rényi DP summed over queries, converted to (epsilon, delta).

Neighbouring inputs differ in one teacher, that is in one vote per query: exactly what changing
one private training label (or one whole example, or one whole shard) can do, since it changes
the one teacher trained on it. Both the data-independent bound (safe to publish as is) and the
data-dependent bound of Papernot et al. 2018 (smaller when teachers agree, but itself a function
of the private votes; releasing it needs smooth sensitivity) are available.

For Confident-GNMax the threshold check is paid on every query; the GNMax step is paid on the
queries in ``answered`` when that mask is given (the paper's accounting, where the set of
answered queries is part of the output) and on every query otherwise (a bound that holds before
anything is answered).

With ``discrete=True`` the noise is the secure mode's integer noise (discrete Laplace for
LNMax, discrete Gaussian for GNMax and the threshold check). Their RDP is at most that of the
continuous noise of the same scale (Canonne, Kamath, Steinke 2020), so the data-independent
bound is unchanged; the data-dependent bound uses the discrete noise's own q.
"""

import math
from collections.abc import Sequence

import numpy as np

from labeldp_core.accounting.rdp import ORDERS, epsilon_from_rdp
from labeldp_core.base.validation import (
    check_epsilon,
    check_positive,
    check_probability,
    check_vote_counts,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.pate.accounting_bounds import (
    log_pr_answered,
    log_pr_answered_discrete,
    log_q_gnmax,
    log_q_gnmax_discrete,
    log_q_lnmax,
    log_q_lnmax_discrete,
    rdp_gaussian_data_dependent,
    rdp_gnmax,
    rdp_pure_dp,
    rdp_pure_dp_data_dependent,
    rdp_threshold,
    rdp_threshold_data_dependent,
)

__all__ = [
    "AGGREGATORS",
    "calibrate_noise",
    "data_independent_epsilon",
    "epsilon_as_queries_grow",
    "pate_epsilon",
    "pate_rdp",
]

AGGREGATORS = ("lnmax", "gnmax", "confident-gnmax")
#: Noise scales searched by :func:`calibrate_noise`, in votes.
_NOISE_RANGE = (1e-3, 1e9)


def _check_aggregator(aggregator: str) -> str:
    if aggregator not in AGGREGATORS:
        raise InvalidInputError(
            f"aggregator must be one of {', '.join(AGGREGATORS)}, got {aggregator!r}"
        )
    return aggregator


def _check_threshold_args(
    aggregator: str, threshold: object, threshold_sigma: object, answered: object
) -> None:
    if aggregator == "confident-gnmax":
        if threshold is None or threshold_sigma is None:
            raise InvalidInputError(
                "confident-gnmax needs threshold (T, in votes) and threshold_sigma (sigma1)"
            )
        if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
            raise InvalidInputError(f"threshold must be a number of votes, got {threshold!r}")
        if not math.isfinite(float(threshold)):
            raise InvalidInputError(f"threshold must be finite, got {threshold}")
        check_positive(threshold_sigma, "threshold_sigma")
    elif threshold is not None or threshold_sigma is not None or answered is not None:
        raise InvalidInputError(
            f"threshold, threshold_sigma and answered apply to confident-gnmax only, "
            f"not to {aggregator}; leave them out"
        )


def _check_answered(answered: object, queries: int) -> np.ndarray | None:
    if answered is None:
        return None
    mask = np.asarray(answered)
    if mask.dtype != bool or mask.shape != (queries,):
        raise InvalidInputError(
            f"answered must be a boolean array with one entry per query ({queries}), "
            f"got dtype {mask.dtype} and shape {mask.shape}"
        )
    return mask


def pate_rdp(
    vote_counts: np.ndarray,
    *,
    aggregator: str,
    noise: float,
    threshold: float | None = None,
    threshold_sigma: float | None = None,
    data_dependent: bool = True,
    answered: np.ndarray | None = None,
    orders: np.ndarray = ORDERS,
    discrete: bool = False,
) -> np.ndarray:
    """Rényi DP of every query, one row per query and one column per order.

    Arguments as in :func:`pate_epsilon`; ``orders`` are the Rényi orders of the columns.
    """
    _check_aggregator(aggregator)
    _check_threshold_args(aggregator, threshold, threshold_sigma, answered)
    counts = check_vote_counts(vote_counts)
    noise = float(check_positive(noise, "noise"))
    mask = _check_answered(answered, counts.shape[0])
    shape = (counts.shape[0], len(orders))
    if aggregator == "lnmax":
        epsilon = 2.0 / noise
        if data_dependent:
            log_q = (log_q_lnmax_discrete if discrete else log_q_lnmax)(counts, noise)
            return rdp_pure_dp_data_dependent(log_q, epsilon, orders)
        return np.broadcast_to(rdp_pure_dp(epsilon, orders), shape).copy()
    if data_dependent:
        log_q = (log_q_gnmax_discrete if discrete else log_q_gnmax)(counts, noise)
        gnmax = rdp_gaussian_data_dependent(log_q, noise, orders)
    else:
        gnmax = np.broadcast_to(rdp_gnmax(noise, orders), shape).copy()
    if aggregator == "gnmax":
        return gnmax
    sigma1 = float(threshold_sigma)  # type: ignore[arg-type]
    if data_dependent:
        answer_chance = log_pr_answered_discrete if discrete else log_pr_answered
        log_pr = answer_chance(counts, float(threshold), sigma1)  # type: ignore[arg-type]
        check = rdp_threshold_data_dependent(log_pr, sigma1, orders)
    else:
        check = np.broadcast_to(rdp_threshold(sigma1, orders), shape)
    if mask is not None:
        gnmax[~mask] = 0.0
    return check + gnmax


def pate_epsilon(
    vote_counts: np.ndarray,
    delta: float,
    *,
    aggregator: str,
    noise: float,
    threshold: float | None = None,
    threshold_sigma: float | None = None,
    data_dependent: bool = True,
    answered: np.ndarray | None = None,
    discrete: bool = False,
) -> float:
    """(epsilon, delta) guarantee of answering every query in ``vote_counts`` with PATE.

    Per-query RDP (data-dependent where its conditions hold and the data-independent bound
    otherwise, or data-independent throughout) is summed over the queries and converted to
    epsilon at ``delta``, minimising over Rényi orders.

    Args:
        vote_counts: ``(queries, K)`` vote counts of the queries answered.
        delta: the target delta in (0, 1).
        aggregator: ``lnmax`` (``noise`` is the Laplace scale b), ``gnmax`` (``noise`` is
            sigma) or ``confident-gnmax`` (``noise`` is sigma2, plus ``threshold`` T in votes
            and ``threshold_sigma`` sigma1).
        noise: the aggregator's noise scale, in votes.
        threshold: Confident-GNMax's threshold T.
        threshold_sigma: Confident-GNMax's sigma1.
        data_dependent: use the votes to tighten the bound (Papernot et al. 2018); False gives
            the data-independent bound, which may be published as is.
        answered: Confident-GNMax only: which queries passed the threshold; their GNMax step is
            paid and the others' is not. Left out, every query pays both steps.
        discrete: the noise is the secure mode's integer noise of the same scale (discrete
            Laplace or discrete Gaussian, ties broken at random); changes only the
            data-dependent bound.

    Returns:
        epsilon for neighbouring inputs that differ in one teacher's votes.
    """
    delta = check_probability(delta, "delta")
    rdp = pate_rdp(
        vote_counts,
        aggregator=aggregator,
        noise=noise,
        threshold=threshold,
        threshold_sigma=threshold_sigma,
        data_dependent=data_dependent,
        answered=answered,
        discrete=discrete,
    )
    epsilon, _ = epsilon_from_rdp(rdp.sum(axis=0), delta)
    return float(epsilon)


def epsilon_as_queries_grow(
    vote_counts: np.ndarray,
    delta: float,
    checkpoints: Sequence[int],
    *,
    aggregator: str,
    noise: float,
    threshold: float | None = None,
    threshold_sigma: float | None = None,
    data_dependent: bool = True,
    answered: np.ndarray | None = None,
    discrete: bool = False,
) -> np.ndarray:
    """Epsilon spent after the first n queries, for every n in ``checkpoints``.

    Arguments as in :func:`pate_epsilon`; ``checkpoints`` are query counts in 1..queries.
    """
    delta = check_probability(delta, "delta")
    rdp = pate_rdp(
        vote_counts,
        aggregator=aggregator,
        noise=noise,
        threshold=threshold,
        threshold_sigma=threshold_sigma,
        data_dependent=data_dependent,
        answered=answered,
        discrete=discrete,
    )
    points = np.asarray(checkpoints)
    if (
        points.ndim != 1
        or points.size == 0
        or not np.issubdtype(points.dtype, np.integer)
        or points.min() < 1
        or points.max() > rdp.shape[0]
    ):
        raise InvalidInputError(
            f"checkpoints must be query counts in 1..{rdp.shape[0]} (whole numbers), "
            f"got {list(points.ravel())}"
        )
    cumulative = np.cumsum(rdp, axis=0)[points - 1]
    return epsilon_from_rdp(cumulative, delta)[0]


def data_independent_epsilon(
    queries: int,
    delta: float,
    *,
    aggregator: str,
    noise: float,
    threshold_sigma: float | None = None,
) -> float:
    """Data-independent epsilon of ``queries`` queries, every one paying every step.

    This is the guarantee that holds before any vote is seen, so it can be fixed in advance and
    published as is. For ``confident-gnmax`` both the threshold check and GNMax are paid on
    every query.
    """
    _check_aggregator(aggregator)
    queries = int(check_positive(queries, "queries", integer=True))
    delta = check_probability(delta, "delta")
    noise = float(check_positive(noise, "noise"))
    if aggregator == "lnmax":
        per_query = rdp_pure_dp(2.0 / noise, ORDERS)
    else:
        per_query = rdp_gnmax(noise, ORDERS)
    if aggregator == "confident-gnmax":
        if threshold_sigma is None:
            raise InvalidInputError("confident-gnmax needs threshold_sigma (sigma1)")
        per_query = per_query + rdp_threshold(
            check_positive(threshold_sigma, "threshold_sigma"), ORDERS
        )
    return float(epsilon_from_rdp(queries * per_query, delta)[0])


def calibrate_noise(
    epsilon: float,
    queries: int,
    delta: float,
    *,
    aggregator: str,
    threshold_noise_ratio: float = 1.0,
) -> float:
    """The smallest noise whose data-independent epsilon over ``queries`` queries is <= ``epsilon``.

    A binary search (on a log scale) over the noise scale, which the data-independent epsilon
    decreases with. For ``confident-gnmax`` the returned noise is sigma2 and the threshold check
    uses sigma1 = ``threshold_noise_ratio`` * sigma2; both steps are paid on every query.

    Args:
        epsilon: the target epsilon.
        queries: how many queries will be answered.
        delta: the target delta.
        aggregator: ``lnmax`` (returns the Laplace scale), ``gnmax`` or ``confident-gnmax``
            (returns sigma, resp. sigma2).
        threshold_noise_ratio: sigma1 / sigma2 for ``confident-gnmax``.

    Returns:
        The noise scale, in votes.
    """
    epsilon = check_epsilon(epsilon)
    ratio = float(check_positive(threshold_noise_ratio, "threshold_noise_ratio"))

    def spent(noise: float) -> float:
        sigma1 = ratio * noise if aggregator == "confident-gnmax" else None
        return data_independent_epsilon(
            queries, delta, aggregator=aggregator, noise=noise, threshold_sigma=sigma1
        )

    low, high = _NOISE_RANGE
    if spent(high) > epsilon:
        raise InvalidInputError(
            f"epsilon={epsilon:g} over {queries} queries at delta={delta:g} needs noise above "
            f"{high:g} votes, which leaves nothing of the votes; choose a larger epsilon"
        )
    if spent(low) <= epsilon:
        return low
    while high / low > 1.0 + 1e-9:
        middle = math.sqrt(low * high)
        if spent(middle) <= epsilon:
            high = middle
        else:
            low = middle
    return high
