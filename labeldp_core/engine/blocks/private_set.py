"""The imbalanced private set that DP prototypes and DP-SGD's ``imbalance`` setting share.

Both families train on the same examples at one seed (the private part outside the public share,
subsampled to an imbalance ratio), so their curves are compared on the same class counts.
"""

import numpy as np

from labeldp_core.data.imbalance import ImbalancedSubset, imbalanced_subset
from labeldp_core.engine.public_encoder import split_rng

__all__ = ["IMBALANCED_EPSILONS", "PUBLIC_FRACTION", "SUBSAMPLE_DRAW", "imbalanced_private_set"]

#: The epsilon grid of the curves drawn on the imbalanced private set (DP prototypes, and
#: DP-SGD beside them): example-level DP reaches useful accuracy at smaller epsilons there.
IMBALANCED_EPSILONS: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: The default share of the training split made public.
PUBLIC_FRACTION = 0.2
#: Why the imbalanced subsample may stay seeded in every noise mode.
SUBSAMPLE_DRAW = (
    "the private examples kept at this imbalance, drawn with the run's seed from the true labels "
    "(the same at one seed for DPPL and DP-SGD): they are the dataset the epsilon is about (see "
    "guarantee_scope), not a draw of the release"
)


def imbalanced_private_set(
    pool: np.ndarray, labels: np.ndarray, num_classes: int, ratio: float, seed: int
) -> tuple[np.ndarray, ImbalancedSubset]:
    """The private examples kept at imbalance ``ratio``: their training indices and the draw.

    Fixed by the seed alone (not by epsilon or the mechanism), so a run that takes the same
    private ``pool`` (the split :func:`public_embeddings` makes with the same seed and public
    share) and the same ratio gets the very same examples; DP-SGD's ``imbalance`` setting does.

    Args:
        pool: training indices of the private part.
        labels: the training labels.
        num_classes: K.
        ratio: largest / smallest class size, >= 1.
        seed: the run's seed.
    """
    subset = imbalanced_subset(labels[pool], num_classes, ratio, split_rng(seed, 2))
    return pool[subset.indices], subset
