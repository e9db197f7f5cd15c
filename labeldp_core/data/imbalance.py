"""Class imbalance: per-class counts N exp(-lambda r) over a seed-shuffled class order.

As in DPPL (Wahdany et al. 2024): the largest class keeps N examples, where N is the smallest
class size available, and the class at rank r of a random order keeps N exp(-lambda r), with
lambda = ln(ratio) / (K - 1) so that the largest class is ``ratio`` times the smallest (up to
rounding). Which classes end up in the minority depends on the seed only.
"""

import math
from dataclasses import dataclass

import numpy as np

from labeldp_core.base.validation import check_num_classes
from labeldp_core.errors import InvalidInputError

__all__ = ["ImbalancedSubset", "imbalanced_counts", "imbalanced_subset"]


def imbalanced_counts(largest: int, ratio: float, num_classes: int) -> np.ndarray:
    """Counts by rank: round(largest exp(-lambda r)) for r = 0..K-1, lambda = ln(ratio)/(K-1).

    >>> imbalanced_counts(100, 10.0, 3).tolist()
    [100, 32, 10]
    """
    num_classes = check_num_classes(num_classes)
    if isinstance(ratio, bool) or not math.isfinite(ratio) or ratio < 1:
        raise InvalidInputError(
            f"imbalance ratio must be a finite number >= 1 (1 = balanced), got {ratio}"
        )
    decay = math.log(ratio) / (num_classes - 1)
    counts = np.rint(largest * np.exp(-decay * np.arange(num_classes))).astype(np.int64)
    if counts[-1] < 1:
        raise InvalidInputError(
            f"imbalance ratio {ratio:g} leaves the smallest class empty: the largest class can "
            f"keep only {largest} examples; use a ratio of at most {largest:g}"
        )
    return counts


@dataclass(frozen=True)
class ImbalancedSubset:
    """Which examples were kept: their ``indices`` (sorted), per-class ``counts`` and ``order``.

    ``order[r]`` is the class at rank r (rank 0 is the largest class).
    """

    indices: np.ndarray
    counts: np.ndarray
    order: np.ndarray

    @property
    def ratio(self) -> float:
        """The realised ratio of the largest to the smallest class."""
        return float(self.counts.max() / self.counts.min())


def imbalanced_subset(
    labels: np.ndarray, num_classes: int, ratio: float, rng: np.random.Generator
) -> ImbalancedSubset:
    """Subsample ``labels`` to the imbalance ``ratio``; the class order and examples from ``rng``.

    Args:
        labels: 1-D class indices of the pool to draw from; every class must occur.
        num_classes: K.
        ratio: largest / smallest class size, >= 1 (1 keeps every class at the smallest size).
        rng: decides the class order and which examples of each class are kept.
    """
    labels = np.asarray(labels)
    available = np.bincount(labels, minlength=num_classes)
    if available.min() == 0:
        missing = np.flatnonzero(available == 0).tolist()
        raise InvalidInputError(f"classes {missing} have no examples to subsample from")
    by_rank = imbalanced_counts(int(available.min()), ratio, num_classes)
    order = rng.permutation(num_classes)
    counts = np.empty(num_classes, dtype=np.int64)
    counts[order] = by_rank
    kept = [
        rng.choice(np.flatnonzero(labels == cls), size=int(counts[cls]), replace=False)
        for cls in range(num_classes)
    ]
    return ImbalancedSubset(np.sort(np.concatenate(kept)), counts, order)
