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

from functools import cache

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_labels, check_rng
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import RandomizedResponsePlan, check_plan, rr_plan
from labeldp_core.noise.secure_noise import Source

__all__ = [
    "PRIOR_SUM_TOLERANCE",
    "expected_keep_probability",
    "optimal_set_size",
    "output_probabilities",
    "prior_guess_bound",
    "rr_with_prior",
    "rr_with_prior_by_plan",
    "set_keep_probability",
    "top_sets",
]

#: How far a prior row's sum may be from 1 (softmax outputs in float32 are off by ~1e-7).
PRIOR_SUM_TOLERANCE = 1e-6

# Implementation note: arrays are held class-major, (K, n), and every loop runs over the K
# classes (or over the comparators of a sorting network on them), each step one whole-array
# operation over all n examples. NumPy's reductions and sorts along a short last axis (K = 10)
# pay a per-row overhead that costs more than the arithmetic; K-row operations do not.

#: Above this many classes the sorting network's comparator count outgrows NumPy's sort.
_NETWORK_MAX_CLASSES = 64


@cache
def _sorting_network(size: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort comparators (i, j), i < j, for ``size`` inputs.

    Built for the next power of two and pruned to the pairs inside ``size``: the missing inputs
    would be padding at the far end, which such a comparator never moves.
    """
    width = 1 << max(size - 1, 0).bit_length()
    pairs = []
    block = 1
    while block < width:
        step = block
        while step >= 1:
            for first in range(step % block, width - step, 2 * step):
                for offset in range(min(step, width - first - step)):
                    low, high = first + offset, first + offset + step
                    if low // (2 * block) == high // (2 * block) and high < size:
                        pairs.append((low, high))
            step //= 2
        block *= 2
    return tuple(pairs)


def _sorted_descending(columns: np.ndarray) -> list[np.ndarray]:
    """Each example's prior values sorted from largest to smallest, as K rows of length n."""
    if columns.shape[0] > _NETWORK_MAX_CLASSES:
        return list(np.sort(columns, axis=0)[::-1])
    rows = list(columns)
    for i, j in _sorting_network(columns.shape[0]):
        rows[i], rows[j] = np.maximum(rows[i], rows[j]), np.minimum(rows[i], rows[j])
    return rows


def _check_priors(priors: object) -> np.ndarray:
    """Return ``priors`` class-major: a C-contiguous (K, n) float64 array, columns summing to 1."""
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
    columns = np.array(array.T, dtype=np.float64, order="C")  # a copy: normalised in place
    # Two reductions rule out NaN, infinities and negatives: valid entries lie in [0, 1 + tol].
    if not (columns.min() >= 0 and columns.max() <= 1.0 + PRIOR_SUM_TOLERANCE):
        if not np.all(np.isfinite(columns)):
            raise InvalidInputError("priors must be finite; replace NaN or infinite entries")
        if columns.min() < 0:
            raise InvalidInputError(
                f"priors must be non-negative, found {columns.min():g}; clip them at 0 and "
                "normalise"
            )
    sums = columns.sum(axis=0)
    worst = int(np.argmax(np.abs(sums - 1.0)))
    if abs(sums[worst] - 1.0) > PRIOR_SUM_TOLERANCE:
        raise InvalidInputError(
            f"each prior row must sum to 1 (within {PRIOR_SUM_TOLERANCE:g}); row {worst} sums to "
            f"{sums[worst]:.6g}; divide each row by its sum"
        )
    columns /= sums
    return columns


def set_keep_probability(set_size: np.ndarray | int, epsilon: float) -> np.ndarray:
    """e^eps / (e^eps + k - 1): the chance that k-ary RR keeps a label inside a set of size k.

    Written as 1 / (1 + (k-1) e^-eps) so that large epsilons do not overflow.

    >>> float(set_keep_probability(1, 0.5))
    1.0
    """
    epsilon = check_epsilon(epsilon)
    sizes = np.asarray(set_size)
    if not (
        np.issubdtype(sizes.dtype, np.integer)
        or (np.issubdtype(sizes.dtype, np.floating) and np.all(sizes == np.round(sizes)))
    ) or np.any(sizes < 1):
        raise InvalidInputError(
            f"set sizes must be whole numbers >= 1 (the number of labels kept), got {set_size!r}"
        )
    return 1.0 / (1.0 + (sizes.astype(np.float64) - 1.0) * np.exp(-epsilon))


def _best_sizes(columns: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k* per example, the keep chance it achieves, and the k*-th largest prior value.

    k* maximises (top-k prior mass) * e^eps / (e^eps + k - 1) over the set sizes k = 1..K (sizes,
    not indices 0..K-1); ties go to the smallest set. ``columns`` is class-major (K, n).
    """
    num_classes = columns.shape[0]
    descending = _sorted_descending(columns)
    keep = set_keep_probability(np.arange(1, num_classes + 1), epsilon)
    mass = descending[0].copy()
    best = mass * keep[0]
    threshold = descending[0].copy()
    sizes = np.ones(columns.shape[1], dtype=np.int64)
    for size in range(2, num_classes + 1):
        mass += descending[size - 1]
        value = mass * keep[size - 1]
        better = value > best
        np.copyto(best, value, where=better)
        np.copyto(threshold, descending[size - 1], where=better)
        np.copyto(sizes, size, where=better)
    return sizes, best, threshold


def top_sets(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """The (n, K) mask of each example's top-k* labels: the set RR-with-prior answers from."""
    return _top_sets(_check_priors(priors), epsilon)[1].T.copy()


def _top_sets(columns: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """k* per example and the (K, n) mask of its top-k* labels, ties broken towards small labels.

    The set depends on the prior only, never on the true label: a label is in it if its prior is
    above the k*-th largest value, or equal to it and among the first tied labels needed.
    """
    sizes, _, threshold = _best_sizes(columns, epsilon)
    above = columns > threshold
    tied = columns == threshold
    needed = sizes - above.sum(axis=0)
    in_set = np.empty_like(above)
    tied_so_far = np.zeros_like(sizes)
    for label in range(columns.shape[0]):
        tied_so_far += tied[label]
        in_set[label] = above[label] | (tied[label] & (tied_so_far <= needed))
    return sizes, in_set


def optimal_set_size(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """k* per example: the set size in 1..K that maximises the chance of keeping the true label.

    Ties go to the smallest set. Returns an int64 array of shape (n,).

    >>> optimal_set_size(np.array([[0.7, 0.2, 0.1], [1/3, 1/3, 1/3]]), 1.0).tolist()
    [1, 3]
    """
    return _best_sizes(_check_priors(priors), epsilon)[0]


def expected_keep_probability(priors: np.ndarray, epsilon: float) -> np.ndarray:
    """Per example, the chance of reporting the true label if it is drawn from the prior.

    This is the maximum that :func:`optimal_set_size` picks; with a uniform prior it equals
    plain RR's keep probability e^eps / (e^eps + K - 1).
    """
    return _best_sizes(_check_priors(priors), epsilon)[1]


def prior_guess_bound(
    priors: np.ndarray, epsilon: float, weights: np.ndarray | None = None
) -> float:
    """The most any guess of a label can succeed after an ε-label-DP release, given its prior.

    Mean over the rows of ``priors`` of  B(p) = max_k e^ε S_k(p) / (e^ε + k - 1),  where S_k(p)
    is the mass of the k most likely labels of p: the chance that an attacker who believes
    p (say, from the public image) guesses the label right after seeing *any* ε-label-DP
    release, averaged over examples. The reasoning, for one example with prior p over K labels:

    1. Any guess is post-processing of the release, so the channel Q(g | y) from the true
       label y to the guess g is itself ε-DP: Q(g | y) <= e^ε Q(g | y') for all g, y, y'.
       Success is Σ_y p_y Q(y | y) (Bayes: Σ_x max_y p_y P(x | y) for the MAP guess).
    2. Let c_g = min_y Q(g | y). Then Q(y | y) <= e^ε c_y, and since row y sums to 1,
       Q(y | y) <= 1 - Σ_{g≠y} c_g. On the guessed set G (c_g > 0), with T = Σ_{g∈G} Q(g | g),
       each Q(y | y) <= u(T) = (1 - e^-ε T) / (1 - e^-ε).
    3. For a fixed T the best is u(T) on the most likely labels, linear in T between the points
       where T = k u(T), i.e. u = e^ε / (e^ε + k - 1); the maximum is at one of them:
       max_k S_k(p) e^ε / (e^ε + k - 1). RR-with-prior attains it by its choice of k*
       (:func:`expected_keep_probability`), as K-ary RR attains e^ε / (e^ε + K - 1) for a
       uniform prior (k = K).

    The simpler bound of the posterior odds (each changes by at most e^ε) is weaker:
    B(p) <= π e^ε / (π e^ε + 1 - π) with π = max_y p_y. And B(p) >= e^ε / (e^ε + K - 1) for
    every p (take k = K): a prior can only raise the bound. The average over examples bounds the
    measured share of right guesses when the labels follow their priors (a calibrated prior);
    :func:`labeldp_core.families.rr_prior.experiment.set_guess_bound` builds such priors from the
    labels themselves.

    Args:
        priors: (n, K) prior rows, each summing to 1.
        epsilon: the label-DP budget of the release.
        weights: (n,) how many examples each row stands for; all 1 if None.

    >>> round(prior_guess_bound(np.full((2, 10), 0.1), 1.0), 4)  # uniform: e / (e + 9)
    0.232
    """
    bounds = _best_sizes(_check_priors(priors), epsilon)[1]
    return float(np.average(bounds, weights=weights))


def _check_inputs(labels: object, priors: object) -> tuple[np.ndarray, np.ndarray]:
    """Checked labels and the priors class-major (K, n)."""
    columns = _check_priors(priors)
    labels = check_labels(labels, columns.shape[0])
    if labels.shape[0] != columns.shape[1]:
        raise InvalidInputError(
            f"labels and priors must have one row per example: got {labels.shape[0]} labels and "
            f"{columns.shape[1]} prior rows"
        )
    return labels, columns


def output_probabilities(priors: np.ndarray, labels: np.ndarray, epsilon: float) -> np.ndarray:
    """The exact (n, K) distribution of the released label given each prior row and true label.

    Row i holds P(output = o | prior_i, true label labels_i) for every o; it is what
    :func:`rr_with_prior` samples from, in closed form.
    """
    labels, columns = _check_inputs(labels, priors)
    sizes, in_set = _top_sets(columns, epsilon)
    examples = np.arange(labels.shape[0])
    keep = set_keep_probability(sizes, epsilon)
    # (1 - keep) / (k - 1) = e^-eps keep, written so that the ratio is e^eps to the last bit.
    inside = in_set * (np.exp(-epsilon) * keep)
    inside[labels, examples] = keep
    outside = in_set / sizes
    return np.where(in_set[labels, examples], inside, outside).T.copy()


def rr_with_prior(
    labels: np.ndarray,
    priors: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every label by randomized response restricted to its prior's top-k* labels.

    Vectorised over examples: no Python loop over the n rows. The coins are the exact rational
    ones of :func:`~labeldp_core.noise.noise_plans.rr_plan`, so the release spends that
    plan's ``epsilon_spent`` (at most ``epsilon``).

    Args:
        labels: 1-D integer class indices in 0..K-1.
        priors: (n, K) prior rows, each summing to 1; row i must not depend on label i.
        epsilon: the label-DP budget of this release.
        rng: the source of randomness in ``float`` mode.
        noise: ``float`` (coins from ``rng``) or ``secure`` (every coin from os.urandom).
        source: where secure coins draw their bits; os.urandom if None (SeededSource: tests).

    Returns:
        An int64 array of released labels, same shape as ``labels``.
    """
    plan = rr_plan(epsilon, _check_priors(priors).shape[0], noise)
    return rr_with_prior_by_plan(labels, priors, plan, rng, source)


def rr_with_prior_by_plan(
    labels: np.ndarray,
    priors: np.ndarray,
    plan: RandomizedResponsePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Release every label by RR-with-prior with the coins of ``plan``.

    The label sets are chosen for the plan's ``epsilon`` (from the priors alone) and the coins
    are the plan's, so the release spends exactly the plan's ``epsilon_spent``: the epsilon the
    run reports is read off the object that drew the coins.
    """
    plan = check_plan(plan, RandomizedResponsePlan, "rr_plan")
    labels, columns = _check_inputs(labels, priors)
    if plan.max_set_size != columns.shape[0]:
        raise InvalidInputError(
            f"the coins were planned for sets of up to {plan.max_set_size} labels but the priors "
            f"have {columns.shape[0]} classes: build the plan with rr_plan(epsilon, K)"
        )
    if not plan.secure:
        check_rng(rng)
    sizes, in_set = _top_sets(columns, plan.epsilon)
    examples = np.arange(labels.shape[0])
    # Becomes members[j, i]: the set members among labels 0..j (the smallest dtype holding K).
    members = in_set.astype(np.min_scalar_type(in_set.shape[0]))
    for label in range(1, members.shape[0]):
        members[label] += members[label - 1]
    true_in_set = in_set[labels, examples]
    true_member = members[labels, examples].astype(np.int64) - 1  # its index among the members
    keep = plan.keep(sizes, rng, source)
    # One uniform draw per example: for a true label in the set, an index among the k*-1 other
    # members (the true label's index skipped), used if it is not kept; else any of the k*.
    chosen = plan.below(np.where(true_in_set, np.maximum(sizes - 1, 1), sizes), rng, source)
    chosen += true_in_set & (chosen >= true_member)
    np.copyto(chosen, true_member, where=true_in_set & keep)
    # The released label is the first whose running member count exceeds the chosen index,
    # that is the number of labels whose count does not.
    return np.sum(members <= chosen, axis=0, dtype=np.int64)
