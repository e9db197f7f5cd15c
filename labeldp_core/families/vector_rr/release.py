"""Vector randomized response: the unary encoding of RAPPOR (Erlingsson et al. 2014).

Each label y in 0..K-1 becomes the one-hot vector e_y, and each of its K bits is flipped on its
own with probability f = 1 / (1 + e^(ε/2)), kept with p = 1 - f. A bit that is 1 stays 1 with
probability p; a bit that is 0 becomes 1 with probability q = f. Zhao et al. (ICLR 2025, "vector
approximation") train a model with a sigmoid output per bit on these vectors: its bit k
estimates E[b_k | x] = q + (p - q) P(y = k | x), affine and increasing in the class probability,
so the argmax of the outputs is the argmax of the class probabilities.

Privacy unit: one training label, replace-one neighbours. Replacing label a by b changes exactly
two bits of the one-hot vector (a and b); every other bit has the same distribution under both.
Each of the two bits is binary randomized response with ratio p/q = e^(ε/2), so the vector's
probability changes by at most (p/q)^2 = e^ε: the release is ε-label-DP, and the bound is
reached (bit a = 1, bit b = 0). The coins are the exact rational ones of
:func:`~labeldp_core.noise.noise_plans.rr_plan` for a set of two (keep : flip = D : m with
D/m <= e^(ε/2) exactly), so the vector spends ``2 ln(D/m)`` <= ε exactly.
"""

import math

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_labels, check_num_classes, check_rng
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import RandomizedResponsePlan, rr_plan
from labeldp_core.noise.secure_noise import Source

__all__ = [
    "BITS_CHANGED",
    "bit_flip_probability",
    "bit_plan",
    "crossover_classes",
    "estimate_variances",
    "expected_bits",
    "vector_epsilon",
    "vector_randomized_response",
    "vector_randomized_response_by_plan",
]

#: Bits of the one-hot vector that differ between two neighbouring labels (replace-one).
BITS_CHANGED = 2


def bit_flip_probability(epsilon: float) -> float:
    """Probability 1 / (1 + e^(ε/2)) that one bit is flipped (closed form, as a double).

    Written with exp(-ε/2) so that large epsilons do not overflow.

    >>> round(bit_flip_probability(2 * math.log(9)), 6)
    0.1
    """
    epsilon = check_epsilon(epsilon)
    shrink = math.exp(-epsilon / BITS_CHANGED)
    return shrink / (1.0 + shrink)


def expected_bits(epsilon: float, class_probabilities: np.ndarray) -> np.ndarray:
    """E[b_k | x] = q + (p - q) P(y = k | x), with p = 1 - f and q = f: what the model learns.

    Args:
        epsilon: the label-DP budget of the whole vector.
        class_probabilities: rows of P(y = k | x), shape ``(n, K)`` or ``(K,)``.
    """
    flip = bit_flip_probability(epsilon)
    return flip + (1.0 - 2.0 * flip) * np.asarray(class_probabilities, dtype=np.float64)


def estimate_variances(epsilon: float, num_classes: int) -> tuple[float, float]:
    """Per label, the variance of the unbiased estimate of a rare class's share: (vector, RR).

    From a released bit b_k, (b_k - q)/(p - q) estimates 1[y = k] with variance about
    q(1 - q)/(p - q)^2 = e^(ε/2)/(e^(ε/2) - 1)^2, whatever K; from an RR label it is
    (e^ε + K - 2)/(e^ε - 1)^2, growing with K (Wang et al., USENIX Security 2017, for symmetric
    unary encoding and generalized RR). A model that learns P(y = k | x) averages such
    estimates, so the smaller variance is the better learner with the same data.

    >>> vector, rr = estimate_variances(1.0, 10)
    >>> round(vector, 3), round(rr, 3)
    (3.918, 3.63)
    """
    epsilon = check_epsilon(epsilon)
    num_classes = check_num_classes(num_classes)
    half = math.exp(epsilon / BITS_CHANGED)
    vector = half / math.expm1(epsilon / BITS_CHANGED) ** 2
    rr = (math.exp(epsilon) + num_classes - 2) / math.expm1(epsilon) ** 2
    return vector, rr


def crossover_classes(epsilon: float) -> float:
    """The K above which vector RR's estimate has the smaller variance: e^(3ε/2)+e^ε+e^(ε/2)+2.

    Setting the two variances of :func:`estimate_variances` equal gives
    e^ε + K - 2 = e^(ε/2) (e^(ε/2) + 1)^2.

    >>> round(crossover_classes(1.0), 2)
    10.85
    """
    half = math.exp(check_epsilon(epsilon) / BITS_CHANGED)
    return half**3 + half**2 + half + 2


def bit_plan(epsilon: float, mode: str = "float") -> RandomizedResponsePlan:
    """The coins of one bit: binary randomized response at ε/2, exact rational, in ``mode``."""
    epsilon = check_epsilon(epsilon)
    return rr_plan(epsilon / BITS_CHANGED, 2, mode)


def vector_epsilon(plan: RandomizedResponsePlan) -> float:
    """The vector's exact epsilon from its bit coins: 2 ln(D/m), an upper bound rounded up.

    ``plan.epsilon_spent`` is ln(D/m) rounded up and at most ε/2; doubling a double is exact,
    so the result bounds 2 ln(D/m) from above and stays at most ε.
    """
    return BITS_CHANGED * plan.epsilon_spent


def vector_randomized_response(
    labels: np.ndarray,
    epsilon: float,
    num_classes: int,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every label as its one-hot vector with each bit flipped independently.

    Args:
        labels: 1-D integer class indices in 0..K-1.
        epsilon: the label-DP budget (replace-one) of each label's whole vector.
        num_classes: K, the vector's length.
        rng: the source of randomness in ``float`` mode.
        noise: ``float`` (coins from ``rng``) or ``secure`` (coins from os.urandom).
        source: where secure coins draw their bits; os.urandom if None (SeededSource: tests).

    Returns:
        A uint8 array of shape ``(n, K)`` of released bits.
    """
    return vector_randomized_response_by_plan(
        labels, bit_plan(epsilon, noise), num_classes, rng, source
    )


def vector_randomized_response_by_plan(
    labels: np.ndarray,
    plan: RandomizedResponsePlan,
    num_classes: int,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Release every label as its one-hot vector, each bit flipped by the coins of ``plan``.

    The plan (:func:`bit_plan`) both draws the coins and states what they spend, so an experiment
    reports the epsilon of the very coins it released with: :func:`vector_epsilon` of the plan.

    Raises:
        InvalidInputError: if ``plan`` is not a plan of binary coins (a set of two).
    """
    if not isinstance(plan, RandomizedResponsePlan) or plan.max_set_size != 2:
        raise InvalidInputError(
            f"plan must be binary randomized response coins (build one with bit_plan), got {plan!r}"
        )
    num_classes = check_num_classes(num_classes)
    labels = check_labels(labels, num_classes)
    if not plan.secure:
        check_rng(rng)
    one_hot = np.zeros((labels.size, num_classes), dtype=np.uint8)
    one_hot[np.arange(labels.size), labels] = 1
    keep = plan.keep(np.full(one_hot.size, 2), rng, source).reshape(one_hot.shape)
    return np.where(keep, one_hot, 1 - one_hot).astype(np.uint8)
