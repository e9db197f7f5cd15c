"""DP prototypes (DPPL, Wahdany, Jagielski, Dziedzic & Boenisch 2024, arXiv 2406.08039).

Each private class is represented by a prototype in the embedding space of a public encoder, and
an input is classified by the prototype with the highest cosine similarity. Two ways to make the
prototypes differentially private, both with the whole private example (embedding and label) as
the privacy unit and add/remove neighbours:

- DPPL-Mean: the private mean of the class's embeddings (CoinPress, zCDP). Adding or removing
  an example changes only its own class's count and sums, so the classes compose in parallel.
- DPPL-Public: a public example picked by the exponential mechanism. A candidate's utility for a
  class is the sum over the class's private examples of a score in [0, 1], so adding an example
  raises the utilities of its own class only, each by at most 1: sensitivity 1, monotone, and
  again parallel over classes (scores on a grid of 2^-20 keep the sums exact, so this holds to
  the last bit). Top-K picks an unordered set of K candidates per class at once and releases it
  sorted by candidate index: the order of the picks carries nothing beyond the set.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeldp_core.base.validation import (
    check_epsilon,
    check_labels,
    check_num_classes,
    check_positive,
    check_probability,
    check_real_array,
)
from labeldp_core.engine.public_encoder import normalise_rows
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.prototypes.coinpress import (
    CoinPressGroups,
    CoinPressTrace,
    coinpress_group_means,
)
from labeldp_core.families.prototypes.exponential import exponential_mechanism, exponential_topk

__all__ = [
    "SCORE_GRID",
    "SCORE_SENSITIVITY",
    "MeanRelease",
    "check_score_range",
    "class_utilities",
    "cosine_scores",
    "mean_budget_split",
    "nearest_prototype",
    "normalise_rows",
    "private_class_means",
    "public_prototype_indices",
    "total_rho",
]

#: Largest change of any candidate's utility when one private example is added or removed.
SCORE_SENSITIVITY = 1.0
#: Scores are whole multiples of this (2^-20), so their float64 sums are exact.
SCORE_GRID = 2.0**-20
#: Up to this many private examples, a sum of scores stays below 2^53 grid steps (exact).
_MAX_EXACT_EXAMPLES = 2**32
#: Elements of the candidates x private-examples score block computed at once (about 32 MB).
_BLOCK_ELEMENTS = 4_000_000


def check_score_range(min_score: float, max_score: float) -> tuple[float, float]:
    """The clipping window [min_score, max_score] of 1 + cosine similarity, checked non-empty."""
    if not (0.0 <= min_score < max_score <= 2.0):
        raise InvalidInputError(
            f"need 0 <= min_score < max_score <= 2 (scores are 1 + cosine similarity), got "
            f"min_score={min_score}, max_score={max_score}"
        )
    return float(min_score), float(max_score)


def cosine_scores(
    candidates: np.ndarray, private: np.ndarray, min_score: float = 0.0, max_score: float = 2.0
) -> np.ndarray:
    """Scores in [0, 1]: (clip(1 + cos(candidate, private), min, max) - min) / (max - min).

    1 + cos is 2 minus the cosine distance, so it lies in [0, 2]; clipping to a narrower window
    spends the score's range on the similarities that tell candidates apart. Each score is
    rounded down to a multiple of :data:`SCORE_GRID` (a function of its own pair only, still in
    [0, 1]), so that sums of scores are exact in float64 whatever their order.

    Returns:
        float64 ``(candidates, private)`` scores, multiples of :data:`SCORE_GRID`.
    """
    low, high = check_score_range(min_score, max_score)
    scores = normalise_rows(candidates) @ normalise_rows(private).T
    scores += 1.0
    np.clip(scores, low, high, out=scores)
    scores -= low
    scores *= 1.0 / SCORE_GRID / (high - low)
    np.floor(scores, out=scores)
    np.minimum(scores, 1.0 / SCORE_GRID, out=scores)
    scores *= SCORE_GRID
    return scores


def class_utilities(
    candidates: np.ndarray,
    private: np.ndarray,
    labels: np.ndarray,
    num_classes: int,
    *,
    min_score: float = 0.0,
    max_score: float = 2.0,
) -> np.ndarray:
    """Utility of every candidate for every class: the class's sum of :func:`cosine_scores`.

    Computed block by block: a block of candidates' scores against all private examples, then one
    matrix product with the one-hot labels sums them per class. Every score is a whole multiple
    of :data:`SCORE_GRID` and every partial sum stays below 2^53 grid steps, so the float64 sums
    are exact: removing one example changes its own class's utilities by exactly its scores and
    leaves every other class's utilities bit for bit as they were (sensitivity 1, parallel
    composition over classes, with no rounding slack).

    Args:
        candidates: ``(P, d)`` public candidate embeddings.
        private: ``(N, d)`` private embeddings.
        labels: ``(N,)`` private labels in 0..K-1.
        num_classes: K.
        min_score: lower end of the clipping window of 1 + cosine similarity, in [0, 2).
        max_score: upper end of that window, in (min_score, 2].

    Returns:
        float64 ``(K, P)`` utilities; each private example adds at most 1 to its own row only.
    """
    num_classes = check_num_classes(num_classes)
    labels = check_labels(labels, num_classes)
    candidates = check_real_array(candidates, "candidates", finite=True)
    private = check_real_array(private, "private", finite=True)
    if candidates.ndim != 2 or private.ndim != 2 or candidates.shape[1] != private.shape[1]:
        raise InvalidInputError(
            f"candidates (P, d) and private (N, d) must share d, got {candidates.shape} "
            f"and {private.shape}"
        )
    if private.shape[0] != labels.shape[0]:
        raise InvalidInputError(
            f"private has {private.shape[0]} rows but labels has {labels.shape[0]} entries"
        )
    if private.shape[0] > _MAX_EXACT_EXAMPLES:
        raise InvalidInputError(
            f"at most {_MAX_EXACT_EXAMPLES:,} private examples keep the utilities' sums exact, "
            f"got {private.shape[0]:,}"
        )
    one_hot = np.zeros((labels.shape[0], num_classes))
    one_hot[np.arange(labels.shape[0]), labels] = 1.0
    utilities = np.empty((candidates.shape[0], num_classes))
    block = max(1, _BLOCK_ELEMENTS // max(private.shape[0], 1))
    for start in range(0, candidates.shape[0], block):
        scores = cosine_scores(candidates[start : start + block], private, min_score, max_score)
        utilities[start : start + block] = scores @ one_hot
    return utilities.T


def public_prototype_indices(
    utilities: np.ndarray, epsilon: float, rng: np.random.Generator, k: int = 1
) -> np.ndarray:
    """DPPL-Public (k = 1) and Top-K (k > 1): ``k`` candidates per class, epsilon-DP in all.

    Each class's row is released by the exponential mechanism with sensitivity 1 in its monotone
    form (probabilities proportional to exp(epsilon u)): under add/remove every utility of the
    affected class moves up (or down) by at most 1. An example belongs to one class, so the rows
    compose in parallel: the whole release is epsilon-DP under add/remove (2 epsilon under
    replace-one, which can move an example between two classes).

    Returns:
        int64 ``(K, k)`` candidate indices.
    """
    epsilon = check_epsilon(epsilon)
    k = check_positive(k, "k", integer=True)
    if k == 1:
        chosen = exponential_mechanism(utilities, epsilon, SCORE_SENSITIVITY, rng, monotone=True)
        return chosen[:, None]
    return exponential_topk(utilities, k, epsilon, SCORE_SENSITIVITY, rng, monotone=True)


def mean_budget_split(rho: float, steps: int, count_share: float) -> tuple[float, list[float]]:
    """Split a class's zCDP budget: (count's rho, CoinPress steps' rhos) summing to <= ``rho``.

    One step needs no count (cosine similarity ignores the prototype's length, and with one step
    the direction of the noisy sum is the prototype), so it gets everything. With more steps the
    count gets ``count_share`` and the steps share the rest: the last (clipping closest to the
    mean) three quarters, the earlier ones equal parts of the remaining quarter. The last part
    is lowered by units in the last place where rounding would make :func:`total_rho` of the
    parts exceed ``rho``.

    >>> mean_budget_split(1.0, 1, 0.1)
    (0.0, [1.0])
    >>> mean_budget_split(1.0, 3, 0.2)
    (0.2, [0.1, 0.1, 0.6000000000000001])
    """
    rho = float(check_positive(rho, "rho"))
    steps = int(check_positive(steps, "steps", integer=True))
    if steps == 1:
        return 0.0, [rho]
    count_share = check_probability(count_share, "count_share")
    count_rho = count_share * rho
    rest = rho - count_rho
    early = [rest / (4 * (steps - 1))] * (steps - 1)
    last = rest * 3 / 4
    while total_rho(count_rho, [*early, last]) > rho:
        last = math.nextafter(last, 0.0)
    return count_rho, [*early, last]


def total_rho(count_rho: float, step_rhos: Sequence[float]) -> float:
    """A class's zCDP: the sum of its count's and steps' rhos (zCDP composes by addition).

    >>> total_rho(0.2, [0.1, 0.1, 0.6000000000000001])
    1.0
    """
    return math.fsum([count_rho, *step_rhos])


@dataclass(frozen=True)
class MeanRelease:
    """DPPL-Mean's output: a prototype per class, the released counts and CoinPress traces.

    With one CoinPress step no count is released and each prototype is the class's noisy sum,
    which points the same way as the noisy mean (all cosine similarity looks at).
    """

    prototypes: np.ndarray
    noisy_counts: np.ndarray | None
    groups: CoinPressGroups
    count_rho: float
    step_rhos: tuple[float, ...]

    @property
    def traces(self) -> tuple[CoinPressTrace, ...]:
        """Each class's CoinPress trace (clipping radii, noise, confidence radii per step)."""
        return tuple(self.groups.trace(c) for c in range(self.prototypes.shape[0]))

    @property
    def rho(self) -> float:
        """Each class's total zCDP budget (counts plus steps); parallel over classes."""
        return total_rho(self.count_rho, self.step_rhos)


def private_class_means(
    embeddings: np.ndarray,
    labels: np.ndarray,
    num_classes: int,
    rho: float,
    rng: np.random.Generator,
    *,
    steps: int = 2,
    count_share: float = 0.1,
    spread: float = 1.0,
) -> MeanRelease:
    """DPPL-Mean: a rho-zCDP (add/remove) CoinPress mean of each class's embeddings.

    Embeddings are projected into the unit ball first. With more than one step, each class's
    size is released with Gaussian noise (sensitivity 1) to turn noisy sums into means; a count
    below 1 is raised to 1 (post-processing). A class without examples still gets a release
    (pure noise), so whether a class is empty stays hidden.
    """
    num_classes = check_num_classes(num_classes)
    labels = check_labels(labels, num_classes)
    data = check_real_array(embeddings, "embeddings", finite=True)
    if data.ndim != 2 or data.shape[0] != labels.shape[0]:
        raise InvalidInputError(
            f"embeddings must be (n, d) with one row per label, got {data.shape} for "
            f"{labels.shape[0]} labels"
        )
    count_rho, step_rhos = mean_budget_split(rho, steps, count_share)
    counts = np.bincount(labels, minlength=num_classes).astype(np.float64)
    noisy_counts = None
    if count_rho > 0:
        sigma = 1.0 / np.sqrt(2 * count_rho)
        noisy_counts = np.maximum(counts + rng.normal(0.0, sigma, num_classes), 1.0)
    release_counts = np.ones(num_classes) if noisy_counts is None else noisy_counts
    groups = coinpress_group_means(
        data, labels, num_classes, step_rhos, release_counts, rng, bound=1.0, spread=spread
    )
    return MeanRelease(groups.means, noisy_counts, groups, count_rho, tuple(step_rhos))


def nearest_prototype(embeddings: np.ndarray, prototypes: np.ndarray) -> np.ndarray:
    """The class whose prototype has the highest cosine similarity with each embedding.

    Args:
        embeddings: ``(n, d)``.
        prototypes: ``(K, d)``, one per class.

    Returns:
        int64 ``(n,)`` predicted classes.
    """
    embeddings = check_real_array(embeddings, "embeddings", finite=True)
    prototypes = check_real_array(prototypes, "prototypes", finite=True)
    for name, array in (("embeddings", embeddings), ("prototypes", prototypes)):
        if array.ndim != 2:
            raise InvalidInputError(f"{name} must be an (n, d) array, got shape {array.shape}")
    if prototypes.shape[0] == 0:
        raise InvalidInputError("at least one prototype is needed to classify anything")
    if embeddings.shape[1] != prototypes.shape[1]:
        raise InvalidInputError(
            f"embeddings (n, d) and prototypes (K, d) must share d, got {embeddings.shape} and "
            f"{prototypes.shape}"
        )
    similarity = normalise_rows(embeddings) @ normalise_rows(prototypes).T
    return similarity.argmax(axis=1).astype(np.int64)
