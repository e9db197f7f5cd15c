"""Local DP on model outputs: Laplace noise on each softmax vector before it leaves the model.

Privacy unit: one output vector (local DP). Any two probability vectors p, q over K classes satisfy
||p - q||_1 <= 2 (the two one-hot vectors reach it), so noise Lap(0, 2/ε) on each coordinate makes
each released vector ε-LDP: whoever sees it learns little about what the model answered. It does
not protect the training data: the model itself was trained on clean labels.

Calibrating to a sensitivity of 1 instead (a common slip) halves the noise and doubles the real
epsilon, see :func:`actual_epsilon`.
"""

import numpy as np

from labeldp_core.base.validation import check_real_array
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.laplace import epsilon_for_noise, laplace_scale
from labeldp_core.noise.noise_plans import LaplacePlan, check_plan, laplace_plan

__all__ = [
    "PROBABILITY_SENSITIVITY",
    "actual_epsilon",
    "epsilon_for_output_noise",
    "laplace_outputs",
    "laplace_outputs_by_plan",
]

#: Largest L1 distance between two probability vectors.
PROBABILITY_SENSITIVITY = 2.0


def actual_epsilon(epsilon: float, assumed_sensitivity: float) -> float:
    """The guarantee really given when noise is calibrated for ``assumed_sensitivity``.

    The noise scale is assumed/ε, and the privacy loss of that scale on probability vectors is
    2 / scale = ε * 2 / assumed: assuming 1 instead of 2 turns a promised ε into 2ε.

    >>> actual_epsilon(1.0, 1.0)
    2.0
    """
    scale = laplace_scale(assumed_sensitivity, epsilon)
    return PROBABILITY_SENSITIVITY / scale


def epsilon_for_output_noise(magnitude: float, probability: float) -> float:
    """Epsilon at which each output coordinate's noise stays within ±t with probability p."""
    return epsilon_for_noise(magnitude, probability, PROBABILITY_SENSITIVITY)


def laplace_outputs(
    probabilities: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Release every probability vector plus Lap(0, 2/ε) noise on each coordinate.

    Rows are accepted if they sum to one within 1e-4 (float32 softmax outputs) and divided by
    their sums before the noise: two rows summing to 1 + 1e-4 could be 2 + 2e-4 apart in L1,
    two exact probability vectors at most 2, which is what the 2/ε scale covers.

    Args:
        probabilities: ``(n, K)`` rows of non-negative numbers summing to one (softmax outputs).
        epsilon: the local budget of each released vector.
        rng: the source of randomness.

    Returns:
        ``(n, K)`` float64 noisy vectors (not clamped: post-process them as needed, for free);
        the noise is ``laplace_plan(2, epsilon)``'s, which spends its ``epsilon_spent``.
    """
    return laplace_outputs_by_plan(
        probabilities, laplace_plan(PROBABILITY_SENSITIVITY, epsilon), rng
    )


def laplace_outputs_by_plan(
    probabilities: np.ndarray, plan: LaplacePlan, rng: np.random.Generator
) -> np.ndarray:
    """Every probability vector plus the continuous Laplace noise of ``plan`` on each coordinate.

    The plan (for L1 sensitivity 2) draws the noise and states what it spends, so a run reports
    the epsilon of the very noise it added.
    """
    plan = check_plan(plan, LaplacePlan, "laplace_plan")
    if plan.sensitivity != PROBABILITY_SENSITIVITY:
        raise InvalidInputError(
            f"the noise must be planned for two probability vectors' L1 distance, "
            f"{PROBABILITY_SENSITIVITY:g}, got a plan for {plan.sensitivity:g}"
        )
    array = check_real_array(probabilities, "probabilities")
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] < 2:
        raise InvalidInputError(f"expected probabilities of shape (n, K >= 2), got {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise InvalidInputError("probabilities must be finite and non-negative")
    sums = array.sum(axis=1, keepdims=True)
    if not np.allclose(sums, 1.0, atol=1e-4):
        raise InvalidInputError(
            "each row must sum to one (the 2/ε scale relies on it); apply a softmax first"
        )
    return array / sums + plan.continuous(array.shape, rng)
