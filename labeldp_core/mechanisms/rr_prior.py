"""Randomized response with a prior (RRTop-k; Ghazi et al. 2021, arXiv 2102.06062).

Each example comes with a prior over its K labels that does not depend on its own label (from
other data or an earlier private stage). RR-with-prior keeps only the k* labels the prior finds most
likely, where k* (the *size* of the set, 1..K) maximises the chance of reporting the true label,

    (prior mass of the top-k labels) * e^eps / (e^eps + k - 1),

and runs k*-ary randomized response inside that set: a true label in the set is kept with
probability e^eps / (e^eps + k* - 1) and otherwise replaced by one of the other k* - 1 members
uniformly; a true label outside the set becomes a uniform member of the set.

Privacy unit: one label, replace-one. The set depends on the prior only, and for any two true
labels a, b and any output o, P(o | a) <= e^eps P(o | b), so every release is epsilon-label-DP.
With a uniform prior k* = K and this is plain K-ary randomized response.
"""

import numpy as np

from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon, check_labels

__all__ = [
    "PRIOR_SUM_TOLERANCE",
    "expected_keep_probability",
    "optimal_set_size",
    "output_probabilities",
    "rr_with_prior",
    "set_keep_probability",
]

#: How far a prior row's sum may be from 1 (softmax outputs in float32 are off by ~1e-7).
PRIOR_SUM_TOLERANCE = 1e-6


def _check_priors(priors: object) -> np.ndarray:
    """Return ``priors`` as float64 rows summing to exactly one, or say what is wrong."""
    array = np.asarray(priors)
    if array.ndim != 2:
        raise InvalidInputError(
            f"priors must be a 2-D array (n examples, K classes), got shape {array.shape}"
        )
    if array.shape[0] == 0:
        raise InvalidInputError("priors is empty; pass one prior row per label")
    if array.shape[1] < 2:
        raise InvalidInputError(f"priors must have at least 2 columns (classes), got {array.shape}")
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise InvalidInputError(f"priors must be real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise InvalidInputError("priors must be finite; replace NaN or infinite entries")
    if array.min() < 0:
        raise InvalidInputError(
            f"priors must be non-negative, found {array.min():g}; clip them at 0 and normalise"
        )
    sums = array.sum(axis=1)
    worst = int(np.argmax(np.abs(sums - 1.0)))
    if abs(sums[worst] - 1.0) > PRIOR_SUM_TOLERANCE:
        raise InvalidInputError(
            f"each prior row must sum to 1 (within {PRIOR_SUM_TOLERANCE:g}); row {worst} sums to "
            f"{sums[worst]:.6g}; divide each row by its sum"
        )
    return array / sums[:, None]


def set_keep_probability(set_size: np.ndarray | int, epsilon: float) -> np.ndarray:
    """e^eps / (e^eps + k - 1): the chance that k-ary RR keeps a label inside a set of size k.

    Written as 1 / (1 + (k-1) e^-eps) so that large epsilons do not overflow.

    >>> float(set_keep_probability(1, 0.5))
    1.0
    """
    epsilon = check_epsilon(epsilon)
    return 1.0 / (1.0 + (np.asarray(set_size, dtype=np.float64) - 1.0) * np.exp(-epsilon))


def _keep_objective(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """(n, K) array whose column k-1 is the top-k prior mass times the keep probability of k."""
    top_mass = np.cumsum(-np.sort(-priors, axis=1), axis=1)
    sizes = np.arange(1, priors.shape[1] + 1)  # set sizes k = 1..K, not indices 0..K-1
    return top_mass * set_keep_probability(sizes, epsilon)


def optimal_set_size(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """k* per example: the set size in 1..K that maximises the chance of keeping the true label.

    Ties go to the smallest set. Returns an int64 array of shape (n,).

    >>> optimal_set_size(np.array([[0.7, 0.2, 0.1], [1/3, 1/3, 1/3]]), 1.0).tolist()
    [1, 3]
    """
    objective = _keep_objective(_check_priors(priors), epsilon)
    return np.argmax(objective, axis=1).astype(np.int64) + 1


def expected_keep_probability(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """Per example, the chance of reporting the true label if it is drawn from the prior.

    This is the maximum that :func:`optimal_set_size` picks; with a uniform prior it equals
    plain RR's keep probability e^eps / (e^eps + K - 1).
    """
    return _keep_objective(_check_priors(priors), epsilon).max(axis=1)


def _ranks(priors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels by decreasing prior (stable, so ties keep label order) and each label's position."""
    order = np.argsort(-priors, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(priors.shape[1])[None, :], axis=1)
    return order, ranks


def output_probabilities(priors: np.ndarray, labels: np.ndarray, epsilon: float) -> np.ndarray:
    """The exact (n, K) distribution of the released label given each prior row and true label.

    Row i holds P(output = o | prior_i, true label labels_i) for every o; it is what
    :func:`rr_with_prior` samples from, in closed form.
    """
    priors = _check_priors(priors)
    labels = check_labels(labels, priors.shape[1])
    _check_lengths(labels, priors)
    sizes = np.argmax(_keep_objective(priors, epsilon), axis=1) + 1
    _, ranks = _ranks(priors)
    in_set = ranks < sizes[:, None]  # (n, K): which labels are in the top-k* set
    true_in_set = np.take_along_axis(in_set, labels[:, None], axis=1)[:, 0]
    keep = set_keep_probability(sizes, epsilon)
    # (1 - keep) / (k - 1) = e^-eps keep, written so that the ratio is e^eps to the last bit.
    other = np.exp(-epsilon) * keep
    inside = np.where(in_set, other[:, None], 0.0)
    inside[np.arange(labels.shape[0]), labels] = keep
    outside = in_set / sizes[:, None]
    return np.where(true_in_set[:, None], inside, outside)


def _check_lengths(labels: np.ndarray, priors: np.ndarray) -> None:
    if labels.shape[0] != priors.shape[0]:
        raise InvalidInputError(
            f"labels and priors must have one row per example: got {labels.shape[0]} labels and "
            f"{priors.shape[0]} prior rows"
        )


def rr_with_prior(
    labels: np.ndarray, priors: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Release every label by randomized response restricted to its prior's top-k* labels.

    Vectorised over examples: no Python loop over the n rows.

    Args:
        labels: 1-D integer class indices in 0..K-1.
        priors: (n, K) prior rows, each summing to 1; row i must not depend on label i.
        epsilon: the label-DP budget of this release.
        rng: the source of randomness.

    Returns:
        An int64 array of released labels, same shape as ``labels``.
    """
    priors = _check_priors(priors)
    labels = check_labels(labels, priors.shape[1])
    _check_lengths(labels, priors)
    n = labels.shape[0]
    sizes = np.argmax(_keep_objective(priors, epsilon), axis=1) + 1
    order, ranks = _ranks(priors)
    true_rank = ranks[np.arange(n), labels]
    keep = rng.random(n) < set_keep_probability(sizes, epsilon)
    # Another member of the set: a uniform position among the k*-1 others, skipping the true one.
    other = rng.integers(0, np.maximum(sizes - 1, 1))
    other += other >= true_rank
    anywhere = rng.integers(0, sizes)  # true label outside the set: any member, uniformly
    position = np.where(true_rank < sizes, np.where(keep, true_rank, other), anywhere)
    return order[np.arange(n), position]
