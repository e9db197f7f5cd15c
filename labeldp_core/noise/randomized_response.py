"""K-ary randomized response (Warner 1965): keep the true label or report another one uniformly.

Privacy unit: one training label, replace-one neighbours. For every pair of true labels a, b and
every output o, P(o | a) <= e^epsilon P(o | b), which is exactly epsilon-label-DP.

Shared base, not one family's: the randomized-response family releases through it, and so do
LP-2ST's first stage (the RR-with-prior family) and the figures of vector RR, the classroom and
the label-guessing game. ``labeldp_core.mechanisms`` serves its public names.
"""

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_labels, check_num_classes, check_rng
from labeldp_core.noise.noise_plans import RandomizedResponsePlan, check_plan, rr_plan
from labeldp_core.noise.secure_noise import Source

__all__ = [
    "expected_flip_rate",
    "keep_probability",
    "randomized_response",
    "randomized_response_by_plan",
    "transition_matrix",
]


def keep_probability(epsilon: float, num_classes: int) -> float:
    """Probability e^eps / (e^eps + K - 1) that RR reports the true label.

    Written as 1 / (1 + (K-1) e^-eps) so that large epsilons do not overflow.

    >>> round(keep_probability(np.log(9), 2), 6)
    0.9
    """
    epsilon = check_epsilon(epsilon)
    num_classes = check_num_classes(num_classes)
    return float(1.0 / (1.0 + (num_classes - 1) * np.exp(-epsilon)))


def expected_flip_rate(epsilon: float, num_classes: int) -> float:
    """Expected share of released labels that differ from the true ones: (K-1)/(e^eps+K-1)."""
    return 1.0 - keep_probability(epsilon, num_classes)


def transition_matrix(epsilon: float, num_classes: int) -> np.ndarray:
    """The K x K matrix P[true, released] of randomized response; each row sums to one."""
    keep = keep_probability(epsilon, num_classes)
    other = (1.0 - keep) / (num_classes - 1)
    matrix = np.full((num_classes, num_classes), other)
    np.fill_diagonal(matrix, keep)
    return matrix


def randomized_response(
    labels: np.ndarray,
    epsilon: float,
    num_classes: int,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every label through K-ary randomized response, vectorised over the array.

    The coins are the exact rational ones of :func:`~labeldp_core.noise.noise_plans.rr_plan`
    (keep : each other label = D : m <= e^epsilon), so the release spends that plan's
    ``epsilon_spent``, at most ``epsilon``.

    Args:
        labels: 1-D integer class indices in 0..K-1.
        epsilon: the label-DP budget; each label is released once with this budget.
        num_classes: K, the number of classes.
        rng: the source of randomness in ``float`` mode.
        noise: ``float`` (coins from ``rng``) or ``secure`` (coins from os.urandom).
        source: where secure coins draw their bits; os.urandom if None (SeededSource: tests).

    Returns:
        An int64 array of released labels, same shape as ``labels``.
    """
    num_classes = check_num_classes(num_classes)
    return randomized_response_by_plan(labels, rr_plan(epsilon, num_classes, noise), rng, source)


def randomized_response_by_plan(
    labels: np.ndarray,
    plan: RandomizedResponsePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Release every label through K-ary randomized response with the coins of ``plan``.

    The plan both draws the coins and states what they spend (its ``epsilon_spent``), so an
    experiment reports the epsilon of the very coins it released with. K is the plan's
    ``max_set_size``.
    """
    plan = check_plan(plan, RandomizedResponsePlan, "rr_plan")
    num_classes = plan.max_set_size
    labels = check_labels(labels, num_classes)
    if not plan.secure:
        check_rng(rng)
    size = labels.shape[0]
    keep = plan.keep(np.full(size, num_classes), rng, source)
    # A uniform draw from the K-1 other labels: draw from 0..K-2 and skip over the true label.
    other = plan.below(np.full(size, num_classes - 1), rng, source)
    other += other >= labels
    return np.where(keep, labels, other)
