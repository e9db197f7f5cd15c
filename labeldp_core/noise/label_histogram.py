"""Noisy per-group label histograms, and the label prior they give each group.

The groups (for example k-means clusters of the images) must not depend on the labels. Counting
labels per group is a query of L1 sensitivity 2: replacing one label takes one count down and
another up. Discrete Laplace noise calibrated to that sensitivity makes the whole table
epsilon-label-DP; clipping at 0 and normalising each row into a prior is post-processing, and so
is adding a pseudo-count to every entry first, which keeps a class whose noisy count fell below 0
from getting prior probability exactly 0 (a Bayesian posterior can never recover from that).

The noise is :func:`~labeldp_core.noise.noise_plans.laplace_plan`'s for sensitivity 2: by
default from the run's NumPy generator (a difference of two geometric draws); with
``noise="secure"`` from the exact sampler on os.urandom, at a scale rounded up to a fraction.
"""

import numpy as np

from labeldp_core.base.validation import (
    check_labels,
    check_num_classes,
    check_positive,
    check_real_array,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import LaplacePlan, check_plan, laplace_plan
from labeldp_core.noise.secure_noise import Source

__all__ = [
    "HISTOGRAM_SENSITIVITY",
    "label_counts",
    "noisy_label_counts",
    "noisy_label_counts_by_plan",
    "prior_from_counts",
]

#: L1 change of a label histogram when one label is replaced by another.
HISTOGRAM_SENSITIVITY = 2


def label_counts(
    groups: np.ndarray, labels: np.ndarray, num_groups: int, num_classes: int
) -> np.ndarray:
    """The exact (num_groups, K) table counting each label in each group."""
    num_classes = check_num_classes(num_classes)
    num_groups = int(check_positive(num_groups, "num_groups", integer=True))
    labels = check_labels(labels, num_classes)
    groups = np.asarray(groups)
    if (
        groups.ndim != 1
        or not np.issubdtype(groups.dtype, np.integer)
        or (groups.size and (groups.min() < 0 or groups.max() >= num_groups))
    ):
        raise InvalidInputError(
            f"groups must be a 1-D array of integer group ids in 0..{num_groups - 1}"
        )
    if groups.shape != labels.shape:
        raise InvalidInputError(
            f"groups and labels must have the same length, got {groups.shape[0]} and "
            f"{labels.shape[0]}"
        )
    flat = np.bincount(
        groups.astype(np.int64) * num_classes + labels, minlength=num_groups * num_classes
    )
    return flat.reshape(num_groups, num_classes)


def noisy_label_counts(
    groups: np.ndarray,
    labels: np.ndarray,
    num_groups: int,
    num_classes: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Label counts per group plus discrete Laplace noise for L1 sensitivity 2 (epsilon-label-DP).

    The noise is ``laplace_plan(2, epsilon, noise)``'s: ``secure`` uses the exact sampler (bits
    from ``source``, os.urandom if None), ``float`` the run's generator ``rng``.

    Returns an int64 (num_groups, K) table; entries can be negative (clip before using them).
    """
    plan = laplace_plan(HISTOGRAM_SENSITIVITY, epsilon, noise)
    return noisy_label_counts_by_plan(groups, labels, num_groups, num_classes, plan, rng, source)


def noisy_label_counts_by_plan(
    groups: np.ndarray,
    labels: np.ndarray,
    num_groups: int,
    num_classes: int,
    plan: LaplacePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Label counts per group plus the discrete Laplace noise of ``plan`` (sensitivity 2).

    The plan draws the noise and states what it spends (its ``epsilon_spent``), so the run
    reports the epsilon of the very noise it added.
    """
    plan = check_plan(plan, LaplacePlan, "laplace_plan")
    if plan.sensitivity != HISTOGRAM_SENSITIVITY:
        raise InvalidInputError(
            f"a label histogram's noise must be planned for L1 sensitivity {HISTOGRAM_SENSITIVITY}"
            f" (one changed label moves two counts by one), got {plan.sensitivity:g}"
        )
    counts = label_counts(groups, labels, num_groups, num_classes)
    return counts + plan.discrete(counts.shape, rng, source)


def prior_from_counts(counts: np.ndarray, pseudo_count: float = 0.0) -> np.ndarray:
    """Rows of (noisy) counts clipped at 0, plus ``pseudo_count`` each, normalised.

    Args:
        counts: ``(groups, K)`` noisy counts.
        pseudo_count: added to every clipped count before normalising (0 or a positive number).
            With 0 a class whose count was clipped gets probability 0 and a row with nothing
            left is uniform; with a positive value every class keeps some probability.

    Returns:
        ``(groups, K)`` rows of probabilities.
    """
    array = check_real_array(counts, "counts")
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] < 2:
        raise InvalidInputError(
            f"counts must be a (groups, K) array with K >= 2 and at least one group, "
            f"got shape {array.shape}"
        )
    if not np.all(np.isfinite(array)):
        raise InvalidInputError("counts must be finite (found NaN or infinity)")
    if pseudo_count != 0:
        check_positive(pseudo_count, "pseudo_count")
    clipped = np.clip(array, 0.0, None) + pseudo_count
    totals = clipped.sum(axis=1, keepdims=True)
    uniform = np.full_like(clipped, 1.0 / clipped.shape[1])
    return np.divide(clipped, totals, out=uniform, where=totals > 0)
