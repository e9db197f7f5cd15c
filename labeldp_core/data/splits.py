"""PATE's split of a training set: a public part (the queries) and disjoint private teacher shards.

The split is a seeded permutation of the training indices: the first examples form the public
part, the rest is cut into equal consecutive shards, one per teacher. Every example is in exactly
one place, so one private example influences exactly one teacher.
"""

from dataclasses import dataclass

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = ["PUBLIC_FRACTION", "PUBLIC_MAX", "TeacherSplit", "public_size", "teacher_split"]

#: The public part is a sixth of the training split (as MNIST's 10k test vs 60k train) ...
PUBLIC_FRACTION = 1 / 6
#: ... capped at the 60k splits' sixth: the student self-trains on the whole public part's
#: images, and more queries than this would cost more privacy than a few hundred teachers'
#: agreement can pay for anyway.
PUBLIC_MAX = 10_000


@dataclass(frozen=True)
class TeacherSplit:
    """Indices into the training split: the public queries in order, and one shard per teacher."""

    public: np.ndarray
    shards: tuple[np.ndarray, ...]

    @property
    def private_size(self) -> int:
        """Number of private (teacher) examples."""
        return sum(int(shard.size) for shard in self.shards)

    @property
    def shard_sizes(self) -> tuple[int, int]:
        """Smallest and largest shard size (they differ by at most one)."""
        sizes = [shard.size for shard in self.shards]
        return int(min(sizes)), int(max(sizes))


def public_size(n_train: int) -> int:
    """Size of the public part for a training split of ``n_train`` examples."""
    return int(min(PUBLIC_MAX, int(n_train * PUBLIC_FRACTION)))


def teacher_split(n_train: int, teachers: int, seed: int) -> TeacherSplit:
    """Split ``n_train`` training indices into a public part and ``teachers`` private shards.

    Deterministic given ``seed``: the same seed gives the same split, hence the same teachers.

    >>> split = teacher_split(1437, 5, seed=0)
    >>> split.public.size, len(split.shards), split.private_size
    (239, 5, 1198)
    """
    n_public = public_size(n_train)
    private = n_train - n_public
    if not 1 <= teachers <= private:
        raise InvalidInputError(
            f"teachers must lie in 1..{private} for {private} private examples, got {teachers}"
        )
    order = np.random.default_rng([seed, 0x9A7E]).permutation(n_train)
    shards = tuple(np.array_split(order[n_public:], teachers))
    return TeacherSplit(public=order[:n_public], shards=shards)
