"""A disjoint public/private split of a training set, fixed by a seed."""

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = ["public_private_split"]


def public_private_split(
    size: int, public_fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted indices of a random public part (``public_fraction`` of ``size``) and the rest.

    >>> public, private = public_private_split(10, 0.3, np.random.default_rng(0))
    >>> len(public), len(private), sorted({*public, *private}) == list(range(10))
    (3, 7, True)
    """
    if not 0 < public_fraction < 1:
        raise InvalidInputError(f"public_fraction must lie in (0, 1), got {public_fraction}")
    n_public = round(size * public_fraction)
    if not 0 < n_public < size:
        raise InvalidInputError(
            f"public_fraction={public_fraction} of {size} examples leaves one side empty"
        )
    order = rng.permutation(size)
    return np.sort(order[:n_public]), np.sort(order[n_public:])
