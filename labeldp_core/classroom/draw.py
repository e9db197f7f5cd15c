"""A round's items: examples with uniformly drawn true labels, released once by the exact sampler.

Each item's true label is drawn uniformly over the K classes, then an example of that class: the
students' prior is then exactly uniform, as the bound e^ε/(e^ε + K − 1) assumes (drawing examples
at random would give a skewed dataset's majority class a head start). Every label is released
once, at the round's ε, by the secure (os.urandom) coins of
:func:`~labeldp_core.noise.randomized_response.randomized_response` or
:func:`~labeldp_core.families.rr_prior.release.rr_with_prior`: replace-one label DP for each item's
label, which spends the coins' ``epsilon_spent`` (at most ε); different items are different
examples, so the round as a whole is ε-label-DP too. Nothing is trained: this runs in classroom
mode.

The variant's prior is public: each item's K-class histogram among its nearest images in the
public sixth of the training split (:func:`labeldp_core.data.splits.public_size`), whose labels
are public; the items come from the rest, so no item's prior reads its own label.
"""

import secrets

import numpy as np

from labeldp_core.classroom.round import Item, RoundConfig
from labeldp_core.data import Dataset
from labeldp_core.data.splits import public_size
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.rr_prior.release import prior_guess_bound, rr_with_prior
from labeldp_core.noise.noise_plans import rr_plan
from labeldp_core.noise.randomized_response import randomized_response
from labeldp_core.noise.secure_noise import Source

__all__ = ["PRIOR_NEIGHBOURS", "draw_items", "epsilon_spent", "public_prior", "public_split"]

#: How many public neighbours an item's prior counts, and the pseudo-count each class gets.
PRIOR_NEIGHBOURS = 15
PRIOR_PSEUDO_COUNT = 0.5
#: The fixed permutation that picks the public part (public and the same on every machine).
_PUBLIC_SEED = 0x5EA7


def public_split(n_train: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the public part (labels public) and of the private rest the items come from."""
    order = np.random.default_rng(_PUBLIC_SEED).permutation(n_train)
    cut = public_size(n_train)
    return np.sort(order[:cut]), np.sort(order[cut:])


def public_prior(dataset: Dataset, indices: np.ndarray) -> np.ndarray:
    """Each example's (n, K) prior: the labels of its nearest public images, smoothed.

    The public part's labels are public; ``indices`` must be outside it.
    """
    public, _ = public_split(dataset.n_train)
    if np.isin(indices, public).any():
        raise InvalidInputError("a prior's example must not be in the public part")
    reference = dataset.x_train[public].reshape(public.size, -1).astype(np.float32)
    queries = dataset.x_train[indices].reshape(len(indices), -1).astype(np.float32)
    distances = (
        (queries**2).sum(1)[:, None] - 2 * queries @ reference.T + (reference**2).sum(1)[None, :]
    )
    nearest = np.argsort(distances, axis=1, kind="stable")[:, :PRIOR_NEIGHBOURS]
    counts = np.full((len(indices), dataset.num_classes), PRIOR_PSEUDO_COUNT)
    np.add.at(counts, (np.arange(len(indices))[:, None], dataset.y_train[public][nearest]), 1.0)
    return counts / counts.sum(axis=1, keepdims=True)


def _pick_examples(labels: np.ndarray, pool: np.ndarray, classes: np.ndarray, rng) -> np.ndarray:
    """One example of each drawn class from ``pool``, never one twice.

    An example drawn twice would have its label released twice (2ε for that label), so a class
    with fewer examples than it drew is refused.
    """
    chosen = []
    for label in np.unique(classes):
        members = pool[labels[pool] == label]
        wanted = int((classes == label).sum())
        if wanted > members.size:
            raise InvalidInputError(
                f"class {label} has {members.size} examples to draw from and {wanted} items drew "
                "it; ask for fewer items (each example is released once)"
            )
        chosen.append(rng.choice(members, wanted, replace=False))
    picked = np.concatenate(chosen)
    return picked[rng.permutation(picked.size)]


def draw_items(
    dataset: Dataset,
    config: RoundConfig,
    *,
    seed: int | None = None,
    source: Source | None = None,
) -> tuple[tuple[Item, ...], float]:
    """The round's items and the bound its overall tally is drawn against.

    Args:
        dataset: the dataset named in ``config``.
        config: ε, items, mechanism.
        seed: picks the examples (their true labels uniform); fresh from :mod:`secrets` if None.
        source: where the release's secure coins come from; os.urandom if None (tests: seeded).

    Returns:
        The items, and e^ε/(e^ε + K − 1) for RR or, for RR with prior, the prior's own bound
        (:func:`~labeldp_core.families.rr_prior.release.prior_guess_bound`, averaged over items).
    """
    if dataset.num_classes != config.num_classes:
        raise InvalidInputError(
            f"{dataset.name} has {dataset.num_classes} classes, the round {config.num_classes}"
        )
    rng = np.random.default_rng(secrets.randbits(128) if seed is None else seed)
    pool = (
        public_split(dataset.n_train)[1]
        if config.mechanism == "rr-prior"
        else np.arange(dataset.n_train)
    )
    classes = rng.integers(config.num_classes, size=config.items)
    indices = _pick_examples(dataset.y_train, pool, classes, rng)
    truth = dataset.y_train[indices].astype(np.int64)
    if config.mechanism == "rr":
        released = randomized_response(
            truth, config.epsilon, config.num_classes, rng, noise="secure", source=source
        )
        bound = config.uniform_bound
    else:
        priors = public_prior(dataset, indices)
        released = rr_with_prior(truth, priors, config.epsilon, rng, noise="secure", source=source)
        bound = prior_guess_bound(priors, config.epsilon)
    items = tuple(
        Item(int(i), int(t), int(r)) for i, t, r in zip(indices, truth, released, strict=True)
    )
    return items, bound


def epsilon_spent(config: RoundConfig) -> float:
    """What each item's release spends: the secure coins' ε, at most the round's ε."""
    return rr_plan(config.epsilon, config.num_classes, "secure").epsilon_spent
