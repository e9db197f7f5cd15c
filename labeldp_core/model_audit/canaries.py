"""Flipped-label canaries: training examples given a uniformly random wrong label.

Each canary ``i`` keeps its image and gets a planted label ``y'`` drawn uniformly from the labels
other than its true ``y``, and a decoy ``k`` drawn uniformly from the labels other than ``y`` and
``y'``. Given the unordered pair ``{y', k}``, which one was planted is a fair coin the attacker
has to call from the trained model (Malek et al. 2021).
"""

from dataclasses import dataclass

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = ["MIN_CANARIES", "Canaries", "canary_count", "draw_canaries"]

#: Fewer canaries cannot prove much: 100 guesses all correct prove only ε̂ >= 3.5 at 95%.
MIN_CANARIES = 100
#: The count on a large split (Malek et al. use 1,000 on the 60k training images).
LARGE_SET_CANARIES = 1000
#: On smaller sets the default is one training example in five (at least :data:`MIN_CANARIES`):
#: on digits 287 canaries, enough to prove ε̂ above 4 when the model memorises them all.
DEFAULT_SHARE = 5


@dataclass(frozen=True)
class Canaries:
    """The canaries' training rows, true labels, planted labels ``y'`` and decoys ``k``.

    ``inputs`` are crafted inputs that replace the rows' images (:mod:`.crafted`), or None for
    flipped canaries, which keep the training images.
    """

    index: np.ndarray
    true: np.ndarray
    planted: np.ndarray
    decoy: np.ndarray
    inputs: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.index)

    def plant(self, labels: np.ndarray) -> np.ndarray:
        """A copy of the training ``labels`` with each canary's label replaced by ``y'``."""
        planted = np.array(labels, copy=True)
        planted[self.index] = self.planted
        return planted

    def place(self, x_train: np.ndarray) -> np.ndarray:
        """``x_train`` with the crafted inputs in the canaries' rows (itself for flipped ones)."""
        if self.inputs is None:
            return x_train
        placed = np.array(x_train, copy=True)
        placed[self.index] = self.inputs
        return placed


def canary_count(n_train: int, requested: int | None = None) -> int:
    """The number of canaries: ``requested``, or the default for ``n_train`` protected examples.

    The default is :data:`LARGE_SET_CANARIES` on large sets and one example in
    :data:`DEFAULT_SHARE` on small ones; never below :data:`MIN_CANARIES` nor above half the set.
    """
    most = n_train // 2
    if requested is None:
        requested = max(MIN_CANARIES, min(LARGE_SET_CANARIES, n_train // DEFAULT_SHARE))
    if isinstance(requested, bool) or not isinstance(requested, int | np.integer):
        raise InvalidInputError(f"canaries must be a whole number, got {requested!r}")
    if not MIN_CANARIES <= requested <= most:
        raise InvalidInputError(
            f"canaries must lie in {MIN_CANARIES}..{most} (half of the {n_train:,} training "
            f"examples whose labels the mechanism protects; fewer than {MIN_CANARIES} cannot "
            f"prove much), got {requested}"
        )
    return int(requested)


def draw_canaries(
    labels: np.ndarray,
    num_classes: int,
    count: int,
    seed: int,
    rows: np.ndarray | None = None,
) -> Canaries:
    """Choose ``count`` of the training ``rows`` at random (seeded), a wrong label and a decoy.

    ``rows`` are the training rows whose labels the mechanism protects (None: every row); a
    canary elsewhere (a public part, rows the model never trains on) tests nothing it claims.
    """
    if num_classes < 3:
        raise InvalidInputError(
            f"a canary needs two wrong labels to choose between: {num_classes} classes is too few"
        )
    rng = np.random.default_rng([seed, 0xCA4A7])
    if rows is None:
        index = np.sort(rng.choice(len(labels), size=count, replace=False))
    else:
        index = np.sort(rng.choice(np.unique(rows), size=count, replace=False))
    true = np.asarray(labels)[index].astype(np.int64)
    # Shifts 1..K-1 away from y give every wrong label once; two distinct shifts give y' != k.
    shifts = np.array([rng.choice(num_classes - 1, size=2, replace=False) for _ in index]) + 1
    planted = (true + shifts[:, 0]) % num_classes
    decoy = (true + shifts[:, 1]) % num_classes
    return Canaries(index, true, planted, decoy)
