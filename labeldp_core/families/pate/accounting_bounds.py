"""Per-query privacy bounds of PATE's aggregators, as pure formulas vectorised over queries.

Notation: a query's vote counts n_1..n_K, its plurality class i* and q, the probability that the
noisy aggregator answers something other than i*. Data-independent bounds hold whatever the votes;
data-dependent bounds use q (computed from the votes) and are much smaller when teachers agree.

Sources:
- GNMax (Papernot et al. 2018, "Scalable Private Learning with PATE"): Proposition 7 (q by a
  union bound), Proposition 8 (data-independent RDP alpha/sigma^2), Theorem 6 (data-dependent RDP
  from q and the RDP at two higher orders mu1, mu2), Proposition 10 (choice of mu1, mu2).
- Threshold step of Confident-GNMax (same paper, Section 4): a Gaussian mechanism on the top count,
  whose sensitivity is 1 (half of GNMax's squared sensitivity 2), with the same Theorem 6.
- LNMax (Papernot et al. 2017, "Semi-supervised Knowledge Transfer..."): each query is
  (2/b)-DP for Laplace scale b; Lemma 4 bounds q and Theorem 3 gives the data-dependent bound.
- Secure (integer) noise: discrete Laplace of scale b is (2/b)-DP on the counts just as the
  continuous one, and discrete Gaussian noise has RDP at most alpha Δ₂²/(2 sigma^2), the
  continuous Gaussian's (Canonne, Kamath, Steinke 2020, Proposition 5 and Theorem 15), so every
  data-independent bound and Theorems 3 and 6 hold unchanged. Only q differs: the ``_discrete``
  functions compute it from the integer noise's exact tails, counting ties against the plurality.

Every function returns RDP values with one row per query and one column per order.
"""

import math

import numpy as np
from scipy.special import log_ndtr, logsumexp

from labeldp_core.accounting.discrete_tails import (
    log_gaussian_difference_tail,
    log_gaussian_survival,
    log_laplace_difference_tail,
)
from labeldp_core.accounting.rdp import log1mexp

__all__ = [
    "log_pr_answered",
    "log_pr_answered_discrete",
    "log_q_gnmax",
    "log_q_gnmax_discrete",
    "log_q_lnmax",
    "log_q_lnmax_discrete",
    "rdp_gaussian_data_dependent",
    "rdp_gnmax",
    "rdp_pure_dp",
    "rdp_pure_dp_data_dependent",
    "rdp_threshold",
    "rdp_threshold_data_dependent",
]


def _gaps_to_plurality(vote_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Votes of the plurality minus votes of each class, and a mask of the plurality's column."""
    counts = np.asarray(vote_counts, dtype=np.float64)
    winner = np.argmax(counts, axis=1)
    gaps = counts[np.arange(counts.shape[0]), winner][:, None] - counts
    is_winner = np.zeros(counts.shape, dtype=bool)
    is_winner[np.arange(counts.shape[0]), winner] = True
    return gaps, is_winner


def log_q_gnmax(vote_counts: np.ndarray, sigma: float) -> np.ndarray:
    """Upper bound on log Pr[GNMax answers a class other than the plurality] (2018, Prop. 7).

    By a union bound, q <= sum over j != i* of Pr[N(0, 2 sigma^2) >= n_i* - n_j], capped at
    1 - 1/K (the plurality is the most likely answer, so it has probability at least 1/K).
    """
    gaps, is_winner = _gaps_to_plurality(vote_counts)
    terms = np.where(is_winner, -np.inf, log_ndtr(-gaps / (math.sqrt(2.0) * sigma)))
    cap = math.log1p(-1.0 / gaps.shape[1])
    return np.minimum(logsumexp(terms, axis=1), cap)


def log_q_lnmax(vote_counts: np.ndarray, laplace_scale: float) -> np.ndarray:
    """Upper bound on log Pr[LNMax answers a class other than the plurality] (2017, Lemma 4).

    Two independent Laplace(b) draws differ by at least g with probability (2 + g/b) / (4 e^(g/b)),
    summed over the other classes and capped at 1 - 1/K.
    """
    gaps, is_winner = _gaps_to_plurality(vote_counts)
    scaled = gaps / laplace_scale
    terms = np.where(is_winner, -np.inf, np.log(2.0 + scaled) - math.log(4.0) - scaled)
    cap = math.log1p(-1.0 / gaps.shape[1])
    return np.minimum(logsumexp(terms, axis=1), cap)


def _union_of_tails(vote_counts: np.ndarray, log_tail) -> np.ndarray:
    # log of sum over j != i* of P(noisy n_j >= noisy n_i*), capped at 1 - 1/K.
    gaps, is_winner = _gaps_to_plurality(vote_counts)
    terms = np.where(is_winner, -np.inf, log_tail(gaps.ravel()).reshape(gaps.shape))
    cap = math.log1p(-1.0 / gaps.shape[1])
    return np.minimum(logsumexp(terms, axis=1), cap)


def log_q_lnmax_discrete(vote_counts: np.ndarray, laplace_scale: float) -> np.ndarray:
    """Upper bound on log Pr[LNMax with discrete Laplace noise answers a non-plurality class].

    A union bound over the other classes of P(Z_j - Z_i* >= n_i* - n_j), ties included (integer
    noise ties with positive probability), capped at 1 - 1/K: with ties broken uniformly at
    random the plurality is still the most likely answer.
    """
    return _union_of_tails(vote_counts, lambda g: log_laplace_difference_tail(g, laplace_scale))


def log_q_gnmax_discrete(vote_counts: np.ndarray, sigma: float) -> np.ndarray:
    """Upper bound on log Pr[GNMax with discrete Gaussian noise answers a non-plurality class].

    As :func:`log_q_lnmax_discrete`, with the exact tail of the difference of two discrete
    Gaussians in place of Prop. 7's N(0, 2 sigma^2) tail.
    """
    return _union_of_tails(vote_counts, lambda g: log_gaussian_difference_tail(g, sigma))


def log_pr_answered_discrete(
    vote_counts: np.ndarray, threshold: float, threshold_sigma: float
) -> np.ndarray:
    """Natural log of Pr[max count + Z >= T] for discrete Gaussian Z, i.e. Z >= ceil(T - max)."""
    top = np.asarray(vote_counts, dtype=np.float64).max(axis=1)
    return log_gaussian_survival(threshold - top, threshold_sigma)


def log_pr_answered(
    vote_counts: np.ndarray, threshold: float, threshold_sigma: float
) -> np.ndarray:
    """Natural log of Pr[max count + N(0, sigma1^2) >= T], the chance a query is answered."""
    top = np.asarray(vote_counts, dtype=np.float64).max(axis=1)
    return log_ndtr((top - threshold) / threshold_sigma)


def rdp_gnmax(sigma: float, orders: np.ndarray) -> np.ndarray:
    """Data-independent RDP of one GNMax query: alpha / sigma^2 (2018, Prop. 8).

    One teacher's change moves one vote, so the count vector moves by sqrt(2) in L2 norm, and
    the Gaussian mechanism's RDP is alpha * sensitivity^2 / (2 sigma^2).
    """
    return np.asarray(orders, dtype=np.float64) / sigma**2


def rdp_threshold(threshold_sigma: float, orders: np.ndarray) -> np.ndarray:
    """Data-independent RDP of one threshold check: alpha / (2 sigma1^2) (sensitivity 1)."""
    return rdp_gnmax(math.sqrt(2.0) * threshold_sigma, orders)


def rdp_pure_dp(epsilon: float, orders: np.ndarray) -> np.ndarray:
    """RDP of an epsilon-DP mechanism: min(epsilon, alpha epsilon^2 / 2).

    Pure DP bounds every Rényi divergence by epsilon, and it implies (epsilon^2/2)-zCDP
    (Bun and Steinke 2016), i.e. RDP alpha epsilon^2 / 2 at every order.
    """
    orders = np.asarray(orders, dtype=np.float64)
    return np.minimum(epsilon, 0.5 * epsilon**2 * orders)


def rdp_gaussian_data_dependent(log_q: np.ndarray, sigma: float, orders: np.ndarray) -> np.ndarray:
    """Data-dependent RDP of a mechanism with RDP alpha/sigma^2, given q per query (2018, Thm. 6).

    With mu2 = sigma sqrt(log 1/q), mu1 = mu2 + 1 (Proposition 10) and eps_i = mu_i / sigma^2,
    for orders alpha < mu1 the RDP is at most
    log((1-q) A^(alpha-1) + q B^(alpha-1)) / (alpha-1), where
    A = (1-q) / (1 - (q e^eps2)^((mu2-1)/mu2)) and B = e^eps1 / q^(1/(mu1-1)),
    provided mu2 > 1, q e^eps2 < 1 and q <= e^((mu2-1) eps2) / (mu1/(mu1-1) mu2/(mu2-1))^mu2.
    Where the conditions fail the data-independent alpha/sigma^2 is used; the result is never
    above it. A query whose answer is certain (q = 0) costs nothing.

    Args:
        log_q: ``(queries,)`` natural log of an upper bound on q.
        sigma: the noise such that the mechanism's data-independent RDP is alpha/sigma^2.
        orders: the Rényi orders.

    Returns:
        ``(queries, orders)`` RDP values.
    """
    log_q = np.asarray(log_q, dtype=np.float64)
    orders = np.asarray(orders, dtype=np.float64)
    independent = rdp_gnmax(sigma, orders)
    result = np.broadcast_to(independent, (log_q.shape[0], orders.shape[0])).copy()
    result[np.isneginf(log_q)] = 0.0
    finite = np.isfinite(log_q)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu2 = sigma * np.sqrt(np.where(finite, -log_q, 0.0))
        mu1 = mu2 + 1.0
        eps1, eps2 = mu1 / sigma**2, mu2 / sigma**2
        ratios = np.log1p(1.0 / (mu1 - 1.0)) + np.log1p(1.0 / (mu2 - 1.0))
        applies = (
            finite & (mu2 > 1.0) & (-log_q > eps2) & (log_q <= (mu2 - 1.0) * eps2 - mu2 * ratios)
        )
    if not applies.any():
        return result
    lq, m1, m2, e1, e2 = (a[applies][:, None] for a in (log_q, mu1, mu2, eps1, eps2))
    power = orders[None, :] - 1.0
    log_1mq = log1mexp(lq)
    log_a = log_1mq - log1mexp((lq + e2) * (1.0 - 1.0 / m2))
    log_b = e1 - lq / (m1 - 1.0)
    bound = np.logaddexp(log_1mq + power * log_a, lq + power * log_b) / power
    rows = result[applies]
    result[applies] = np.where(orders[None, :] < m1, np.minimum(rows, bound), rows)
    return result


def rdp_threshold_data_dependent(
    log_pr_answered: np.ndarray, threshold_sigma: float, orders: np.ndarray
) -> np.ndarray:
    """Data-dependent RDP of the threshold check: Theorem 6 on its binary outcome.

    The less likely of "answered" and "not answered" plays the role of q, and the check's RDP is
    alpha / (2 sigma1^2), i.e. that of GNMax at sigma = sqrt(2) sigma1.
    """
    log_pr = np.asarray(log_pr_answered, dtype=np.float64)
    log_q = np.minimum(log_pr, log1mexp(log_pr))
    return rdp_gaussian_data_dependent(log_q, math.sqrt(2.0) * threshold_sigma, orders)


def rdp_pure_dp_data_dependent(log_q: np.ndarray, epsilon: float, orders: np.ndarray) -> np.ndarray:
    """Data-dependent RDP of an epsilon-DP mechanism given q per query (2017, Theorem 3).

    If q < 1 / (e^epsilon + 1), the RDP at order alpha is at most
    log((1-q) ((1-q) / (1 - e^epsilon q))^(alpha-1) + q e^(epsilon (alpha-1))) / (alpha-1);
    the result is never above the data-independent :func:`rdp_pure_dp`.

    Args:
        log_q: ``(queries,)`` natural log of an upper bound on q.
        epsilon: the mechanism's pure-DP epsilon per query (2/b for LNMax with Laplace scale b).
        orders: the Rényi orders.

    Returns:
        ``(queries, orders)`` RDP values.
    """
    log_q = np.asarray(log_q, dtype=np.float64)
    orders = np.asarray(orders, dtype=np.float64)
    independent = rdp_pure_dp(epsilon, orders)
    result = np.broadcast_to(independent, (log_q.shape[0], orders.shape[0])).copy()
    result[np.isneginf(log_q)] = 0.0
    applies = np.isfinite(log_q) & (log_q < -np.logaddexp(0.0, epsilon))
    if not applies.any():
        return result
    lq = log_q[applies][:, None]
    power = orders[None, :] - 1.0
    log_1mq = log1mexp(lq)
    log_t = np.logaddexp(log_1mq + power * (log_1mq - log1mexp(epsilon + lq)), lq + epsilon * power)
    result[applies] = np.minimum(result[applies], log_t / power)
    return result
