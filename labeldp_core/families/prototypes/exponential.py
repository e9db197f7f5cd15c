"""The exponential mechanism (McSherry & Talwar 2007): pick one item, or an unordered set of k.

Given utilities u(D, i) whose sensitivity (largest change between neighbouring datasets) is Delta,
picking item i with probability proportional to exp(epsilon u(D, i) / (2 Delta)) is epsilon-DP.
When every utility can only move in the same direction between neighbours (*monotone*, e.g. a
sum over examples of non-negative scores under add/remove), exp(epsilon u / Delta) already is.

Each row of ``utilities`` is an independent instance (one per class for DP prototypes), so one
call releases one choice per row. Probabilities are computed with the largest exponent of each
row subtracted first: that multiplies every weight of the row by the same constant, so the
distribution is unchanged, and exp never overflows.

Unordered top-k (the joint exponential mechanism used by DPPL-Public Top-K, Gillenwater et al.
2022, sampled as in Duff et al.): the utility of a k-set S is min over S of u, which has the
same sensitivity as u and stays monotone. Sort the items by utility; the sets whose worst member
sits at sorted position j (0-based) are the C(j, k-1) sets made of j and k-1 of the j better
items, and they all share the utility of position j. Sampling j with weight
C(j, k-1) exp(epsilon u_(j) / (c Delta)) and then the other k-1 uniformly from the j better
items draws S from exactly the exponential mechanism over all C(n, k) sets.
"""

import numpy as np
from scipy.special import gammaln

from labeldp_core.base.validation import check_epsilon, check_positive, check_real_array
from labeldp_core.errors import InvalidInputError

__all__ = [
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_scale",
    "exponential_topk",
    "topk_worst_position_probabilities",
]


def exponential_scale(epsilon: float, sensitivity: float, *, monotone: bool = False) -> float:
    """The factor epsilon / (c Delta) in the exponent: c = 2 in general, c = 1 if monotone.

    >>> exponential_scale(1.0, 1.0)
    0.5
    >>> exponential_scale(1.0, 1.0, monotone=True)
    1.0
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return epsilon / ((1.0 if monotone else 2.0) * float(sensitivity))


def _check_utilities(utilities: object) -> np.ndarray:
    array = check_real_array(utilities, "utilities")
    if array.ndim not in (1, 2) or array.shape[-1] == 0:
        raise InvalidInputError(
            f"utilities must be a non-empty 1-D array (one instance) or 2-D array (one row per "
            f"instance), got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise InvalidInputError("utilities must be finite numbers (found NaN or infinity)")
    return np.atleast_2d(array)


#: Below exp(-700) (1e-304) a weight is lost next to the row's largest weight, 1, anyway; it is
#: set to 0 without computing exp, which would be slow there (subnormal numbers).
_NEGLIGIBLE_EXPONENT = -700.0


def _stable_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(shifted, out=np.zeros_like(shifted), where=shifted > _NEGLIGIBLE_EXPONENT)
    return weights / weights.sum(axis=-1, keepdims=True)


def _sample_rows(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row by inverting the cumulative distribution (vectorised over rows)."""
    cumulative = np.cumsum(probabilities, axis=-1)
    draws = rng.random(probabilities.shape[0]) * cumulative[:, -1]
    chosen = (cumulative <= draws[:, None]).sum(axis=-1)
    return np.minimum(chosen, probabilities.shape[-1] - 1)


def exponential_probabilities(
    utilities: np.ndarray, epsilon: float, sensitivity: float, *, monotone: bool = False
) -> np.ndarray:
    """Selection probabilities, row by row: softmax(epsilon u / (c Delta)), max exponent removed.

    Args:
        utilities: ``(items,)`` or ``(rows, items)`` utilities, one independent instance per row.
        epsilon: the budget of each row's selection.
        sensitivity: Delta, the largest change of any utility between neighbouring datasets.
        monotone: whether all utilities of a row move in the same direction between neighbours;
            then c = 1 instead of 2 and the same epsilon buys sharper selections.

    Returns:
        float64 probabilities, shape ``(rows, items)``, each row summing to one.
    """
    scale = exponential_scale(epsilon, sensitivity, monotone=monotone)
    return _stable_softmax(scale * _check_utilities(utilities))


def exponential_mechanism(
    utilities: np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    *,
    monotone: bool = False,
) -> np.ndarray:
    """Pick one item per row with the exponential mechanism; epsilon-DP for each row.

    Returns:
        int64 item indices, shape ``(rows,)``.
    """
    probabilities = exponential_probabilities(utilities, epsilon, sensitivity, monotone=monotone)
    return _sample_rows(probabilities, rng).astype(np.int64)


def _log_binomial(n: np.ndarray, k: int) -> np.ndarray:
    """The logarithm of C(n, k), -inf where n < k."""
    n = np.asarray(n, dtype=np.float64)
    out = np.full(n.shape, -np.inf)
    valid = n >= k
    out[valid] = gammaln(n[valid] + 1) - gammaln(k + 1) - gammaln(n[valid] - k + 1)
    return out


def _check_k(k: object, items: int) -> int:
    k = check_positive(k, "k", integer=True)
    if k > items:
        raise InvalidInputError(f"k={k} is larger than the number of items ({items}); lower k")
    return int(k)


def topk_worst_position_probabilities(
    sorted_utilities: np.ndarray,
    k: int,
    epsilon: float,
    sensitivity: float,
    *,
    monotone: bool = False,
) -> np.ndarray:
    """P(the sampled k-set's worst member sits at sorted position j), row by row.

    Args:
        sorted_utilities: ``(rows, items)`` utilities sorted in decreasing order along each row.
        k: the size of the released set.
        epsilon: the budget of each row's selection.
        sensitivity: Delta, the largest change of any utility between neighbouring datasets.
        monotone: whether the utilities move in one direction between neighbours (c = 1).

    Returns:
        ``(rows, items)`` probabilities proportional to C(j, k-1) exp(scale u_(j)), 0 for j < k-1.
    """
    values = _check_utilities(sorted_utilities)
    k = _check_k(k, values.shape[-1])
    scale = exponential_scale(epsilon, sensitivity, monotone=monotone)
    log_counts = _log_binomial(np.arange(values.shape[-1]), k - 1)
    return _stable_softmax(scale * values + log_counts)


def exponential_topk(
    utilities: np.ndarray,
    k: int,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    *,
    monotone: bool = False,
) -> np.ndarray:
    """Pick an unordered set of ``k`` items per row, epsilon-DP per row (one joint selection).

    The set's utility is the utility of its worst member, so the whole set costs epsilon once,
    not k times: no budget is split between the k members. The guarantee covers the *set*
    only: any order of its members that follows the utilities (best first, worst last) is a
    deterministic function of the private data, and one neighbour can reverse it with
    probability 1. So each row is returned sorted by item index, which carries nothing beyond
    the set.

    Returns:
        int64 item indices, shape ``(rows, k)``, each row in increasing order.
    """
    values = _check_utilities(utilities)
    k = _check_k(k, values.shape[-1])
    order = np.argsort(-values, axis=-1, kind="stable")
    sorted_values = np.take_along_axis(values, order, axis=-1)
    probabilities = topk_worst_position_probabilities(
        sorted_values, k, epsilon, sensitivity, monotone=monotone
    )
    worst = _sample_rows(probabilities, rng)
    # The other k-1 members: a uniform (k-1)-subset of the positions better than the worst,
    # taken as the k-1 smallest of independent uniform keys (those at or after it set to inf).
    keys = rng.random(values.shape)
    keys[np.arange(values.shape[-1]) >= worst[:, None]] = np.inf
    if k > 1:
        better = np.argpartition(keys, k - 2, axis=1)[:, : k - 1]
    else:
        better = np.empty((values.shape[0], 0), dtype=np.int64)
    positions = np.concatenate([better, worst[:, None]], axis=1)
    return np.sort(np.take_along_axis(order, positions, axis=1), axis=1)
