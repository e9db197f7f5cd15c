"""PATE aggregation (Papernot et al. 2017, 2018): teachers' votes -> vote counts -> a noisy argmax.

Each of T teachers, trained on its own disjoint shard of the private data, votes for one class on
every public query. The aggregator releases the class with the largest *noisy* vote count:
LNMax adds Laplace noise, GNMax Gaussian noise, and Confident-GNMax first checks (with Gaussian
noise) that the teachers agree strongly enough and answers only those queries. Noise is added to
the counts as floating point; it is never rounded, since rounding would change its distribution.

Privacy comes from the counts' low sensitivity: changing one teacher moves one vote from one class
to another, so each count changes by at most 1 (see :mod:`labeldp_core.families.pate.accounting`).

Secure mode (``noise="secure"``): vote counts are integers, so they take exact integer noise from
os.urandom instead: discrete Laplace (scale rounded up to a fraction) for LNMax, discrete Gaussian
(sigma^2 rounded up, :func:`~labeldp_core.noise.secure_noise.rational_variance`) for GNMax
and the threshold check. Noisy counts then tie with positive probability; ties are broken
uniformly at random, which keeps the plurality the most likely answer.
"""

import math

import numpy as np

from labeldp_core.base.validation import check_num_classes, check_rng, check_vote_counts
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import (
    GaussianPlan,
    LaplacePlan,
    check_plan,
    gaussian_plan,
    laplace_plan_for_scale,
)
from labeldp_core.noise.secure_noise import Source, argmax_random_ties

__all__ = [
    "UNANSWERED",
    "confident_gnmax",
    "confident_gnmax_by_plan",
    "noisy_argmax",
    "noisy_argmax_by_plan",
    "noisy_vote_counts",
    "plurality",
    "top_two_gap",
    "vote_counts",
]

#: The label :func:`confident_gnmax` reports for a query the teachers did not answer.
UNANSWERED = -1


def vote_counts(votes: np.ndarray, num_classes: int) -> np.ndarray:
    """Count the teachers' votes per query and class, one whole-array pass per class.

    For each class, the votes equal to it are summed down the teachers axis in the smallest
    unsigned type that holds the number of teachers (uint8 up to 255 teachers), on votes held in
    the smallest type that holds the classes. Measured by ``bench/pate_speed.py``, this beats one
    ``bincount`` over query*K + vote by about 2.8x (the bincount's wide index array costs more
    memory traffic than K narrow passes), and both beat a per-query loop.

    Args:
        votes: ``(teachers, queries)`` integer class indices, one row per teacher.
        num_classes: K, the number of classes.

    Returns:
        An int64 ``(queries, K)`` array; each row sums to the number of teachers.

    >>> vote_counts(np.array([[0, 1], [0, 2], [1, 2]]), 3).tolist()
    [[2, 1, 0], [0, 1, 2]]
    """
    num_classes = check_num_classes(num_classes)
    votes = np.asarray(votes)
    if votes.ndim != 2 or votes.size == 0:
        raise InvalidInputError(
            f"votes must be a non-empty (teachers, queries) array, got shape {votes.shape}"
        )
    if not np.issubdtype(votes.dtype, np.integer):
        raise InvalidInputError(f"votes must be integer class indices, got dtype {votes.dtype}")
    if votes.min() < 0 or votes.max() >= num_classes:
        raise InvalidInputError(
            f"votes must lie in 0..{num_classes - 1}, found {votes.min()} to {votes.max()}"
        )
    narrow = votes.astype(np.min_scalar_type(num_classes - 1), copy=False)
    total = np.min_scalar_type(votes.shape[0])
    counts = np.empty((num_classes, votes.shape[1]), dtype=np.int64)
    for label in range(num_classes):
        counts[label] = np.add.reduce(narrow == label, axis=0, dtype=total)
    return counts.T.copy()


def _check_integer_counts(counts: np.ndarray) -> None:
    if not np.all(counts == np.round(counts)):
        raise InvalidInputError(
            "secure noise is integer noise for integer vote counts; these counts have "
            "fractional parts, so use noise=float"
        )


def _check_scale(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise InvalidInputError(f"{name} must be a number, got {value!r}")
    scale = float(value)
    if not math.isfinite(scale) or scale < 0:
        raise InvalidInputError(f"{name} must be a finite number >= 0, got {scale}")
    return scale


def plurality(vote_counts: np.ndarray) -> np.ndarray:
    """The class with the most votes per query (ties go to the smallest class index)."""
    return np.argmax(check_vote_counts(vote_counts), axis=1)


def top_two_gap(vote_counts: np.ndarray) -> np.ndarray:
    """Votes of the plurality class minus votes of the runner-up, per query.

    The larger the gap, the less likely noise changes the answer and the less the query costs
    under the data-dependent analysis.
    """
    counts = np.sort(check_vote_counts(vote_counts), axis=1)
    return counts[:, -1] - counts[:, -2]


def noisy_vote_counts(
    vote_counts: np.ndarray,
    rng: np.random.Generator,
    *,
    laplace_scale: float | None = None,
    gaussian_sigma: float | None = None,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """The vote counts plus LNMax's Laplace or GNMax's Gaussian noise: the private release.

    :func:`noisy_argmax` releases only the argmax of these (post-processing); the privacy
    analysis, and the audit, are of the noisy counts themselves: one teacher moving its vote
    changes two counts by one each (L1 distance 2, L2 distance sqrt(2)).

    Args:
        vote_counts: ``(queries, K)`` vote counts.
        rng: the source of randomness in ``float`` mode.
        laplace_scale: scale b of the Laplace noise (LNMax), or
        gaussian_sigma: standard deviation of the Gaussian noise (GNMax); exactly one of them.
        noise: ``float`` or ``secure``: the noise of ``laplace_plan_for_scale(b, noise)`` or
            ``gaussian_plan(sigma, noise)``; secure noise is exact integer noise on integer
            counts from os.urandom.
        source: where secure noise draws its bits; os.urandom if None (SeededSource: tests).

    Returns:
        float64 ``(queries, K)`` noisy counts (integers in secure mode).
    """
    counts, plan = _checked(vote_counts, rng, laplace_scale, gaussian_sigma, noise)
    return counts + plan.draw(counts.shape, rng, source)


def _checked(
    vote_counts: np.ndarray,
    rng: np.random.Generator,
    laplace_scale: float | None,
    gaussian_sigma: float | None,
    noise: str,
) -> tuple[np.ndarray, LaplacePlan | GaussianPlan]:
    """Checked counts and the noise plan of one of the two aggregators."""
    if (laplace_scale is None) == (gaussian_sigma is None):
        raise InvalidInputError(
            "give exactly one of laplace_scale (LNMax) and gaussian_sigma (GNMax), "
            f"got laplace_scale={laplace_scale!r}, gaussian_sigma={gaussian_sigma!r}"
        )
    counts = check_vote_counts(vote_counts)
    check_rng(rng)
    if laplace_scale is not None:
        plan = _laplace_plan(_check_scale(laplace_scale, "laplace_scale"), noise)
    else:
        plan = gaussian_plan(_check_scale(gaussian_sigma, "gaussian_sigma"), noise)
    if plan.secure:
        _check_integer_counts(counts)
    return counts, plan


def noisy_argmax(
    vote_counts: np.ndarray,
    rng: np.random.Generator,
    *,
    laplace_scale: float | None = None,
    gaussian_sigma: float | None = None,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """LNMax or GNMax: the argmax of the vote counts after adding noise to every count.

    Exactly one of ``laplace_scale`` (LNMax, Laplace noise of that scale b; each query is
    2/b-DP) and ``gaussian_sigma`` (GNMax, Gaussian noise of that standard deviation) must be
    given. A scale of 0 adds no noise and returns the plurality (no privacy). The noisy counts
    are :func:`noisy_vote_counts`'; secure counts are integers, so ties are broken at random
    with coins from os.urandom too.

    Args:
        vote_counts: ``(queries, K)`` vote counts, e.g. from :func:`vote_counts`.
        rng: the source of randomness in ``float`` mode.
        laplace_scale: scale b of the Laplace noise, for LNMax.
        gaussian_sigma: standard deviation of the Gaussian noise, for GNMax.
        noise: ``float`` or ``secure`` (see :func:`noisy_vote_counts`).
        source: where secure noise draws its bits; os.urandom if None (SeededSource: tests).

    Returns:
        An int64 array with the released class of every query.
    """
    counts, plan = _checked(vote_counts, rng, laplace_scale, gaussian_sigma, noise)
    return _noisy_argmax(counts, plan, rng, source)


def noisy_argmax_by_plan(
    vote_counts: np.ndarray,
    plan: LaplacePlan | GaussianPlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """LNMax or GNMax with the noise of ``plan``: the plan draws it and states what it is.

    The experiment accounts for the plan it hands here (its scale or sigma), so the epsilon a
    run reports is the one of the very noise the answers drew.
    """
    plan = check_plan(plan, LaplacePlan | GaussianPlan, "laplace_plan_for_scale or gaussian_plan")
    counts = check_vote_counts(vote_counts)
    check_rng(rng)
    if plan.secure:
        _check_integer_counts(counts)
    return _noisy_argmax(counts, plan, rng, source)


def _laplace_plan(scale: float, noise: str) -> LaplacePlan | GaussianPlan:
    """LNMax's noise; a scale of 0 adds none (a zero Gaussian, whatever the mode)."""
    return laplace_plan_for_scale(scale, noise) if scale > 0 else gaussian_plan(0.0, noise)


def _noisy_argmax(
    counts: np.ndarray,
    plan: LaplacePlan | GaussianPlan,
    rng: np.random.Generator,
    source: Source | None,
) -> np.ndarray:
    """Argmax of counts plus the plan's noise; secure noise is integer, so ties go at random."""
    noisy = counts + plan.draw(counts.shape, rng, source)
    if not plan.secure:
        return np.argmax(noisy, axis=1)
    return argmax_random_ties(noisy, source=source)


def confident_gnmax(
    vote_counts: np.ndarray,
    rng: np.random.Generator,
    *,
    threshold: float,
    threshold_sigma: float,
    gaussian_sigma: float,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Confident-GNMax: answer a query only if its noisy top count reaches ``threshold``.

    Step 1 adds N(0, threshold_sigma^2) to the largest vote count and compares it with the
    threshold T; step 2 answers the queries that pass with GNMax at ``gaussian_sigma``. Queries
    on which the teachers disagree are mostly dropped, which is what makes them cheap.

    Args:
        vote_counts: ``(queries, K)`` vote counts.
        rng: the source of randomness in ``float`` mode.
        threshold: T, in votes; typically a large share of the number of teachers.
        threshold_sigma: sigma1, the noise of the threshold check.
        gaussian_sigma: sigma2, the noise of GNMax on the answered queries.
        noise: ``float`` or ``secure`` (discrete Gaussian noise on integer counts for both
            steps, see :func:`noisy_argmax`).
        source: where secure noise draws its bits; os.urandom if None (SeededSource: tests).

    Returns:
        An int64 array with the released class per query, :data:`UNANSWERED` (-1) where the
        query did not pass the threshold.
    """
    sigma1 = _check_scale(threshold_sigma, "threshold_sigma")
    sigma2 = _check_scale(gaussian_sigma, "gaussian_sigma")
    return confident_gnmax_by_plan(
        vote_counts,
        rng,
        threshold=threshold,
        check=gaussian_plan(sigma1, noise),
        answers=gaussian_plan(sigma2, noise),
        source=source,
    )


def confident_gnmax_by_plan(
    vote_counts: np.ndarray,
    rng: np.random.Generator,
    *,
    threshold: float,
    check: GaussianPlan,
    answers: GaussianPlan,
    source: Source | None = None,
) -> np.ndarray:
    """Confident-GNMax with the threshold check's plan and the answers' plan.

    The plans draw the noise and state their sigmas, which the experiment accounts for, so the
    epsilon a run reports is the one of the very noise drawn.
    """
    counts = check_vote_counts(vote_counts)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
        raise InvalidInputError(f"threshold must be a number of votes, got {threshold!r}")
    if not math.isfinite(float(threshold)):
        raise InvalidInputError(f"threshold must be finite, got {threshold}")
    check = check_plan(check, GaussianPlan, "gaussian_plan")
    answers = check_plan(answers, GaussianPlan, "gaussian_plan")
    if check.secure:
        _check_integer_counts(counts)
    else:
        check_rng(rng)
    noisy_top = counts.max(axis=1) + check.draw((counts.shape[0],), rng, source)
    answered = noisy_top >= float(threshold)
    labels = np.full(counts.shape[0], UNANSWERED, dtype=np.int64)
    if answered.any():
        labels[answered] = _noisy_argmax(counts[answered], answers, rng, source)
    return labels
