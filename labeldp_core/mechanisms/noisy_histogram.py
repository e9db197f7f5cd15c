"""A noisy histogram of the labels, released with discrete Laplace noise, and the prior it gives.

Privacy unit: one training label, replace-one neighbours. Changing one label moves one count down
and another up, so the count vector has L1 sensitivity 2 and discrete Laplace noise of scale 2/ε
on each count makes the histogram ε-DP. Counts are integers, so the noise is integer too (the
two-sided geometric distribution, P(z) ∝ e^(-|z|/s)); clamping at zero and normalising is
post-processing.
"""

import math

import numpy as np

from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon, check_labels, check_num_classes, check_positive

__all__ = [
    "HISTOGRAM_SENSITIVITY",
    "discrete_laplace",
    "histogram_prior",
    "noisy_histogram",
]

#: L1 change of the count vector when one label is replaced by another.
HISTOGRAM_SENSITIVITY = 2.0


def discrete_laplace(
    scale: float, size: int | tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """Integers z with P(z) ∝ e^(-|z|/scale), as the difference of two geometric draws.

    If G1, G2 are independent with P(G = g) = (1-a) a^g for g >= 0 and a = e^(-1/scale), then
    G1 - G2 has exactly this two-sided geometric law (numpy's geometric counts from 1; the
    offsets cancel in the difference).
    """
    scale = float(check_positive(scale, "scale"))
    success = -math.expm1(-1.0 / scale)  # 1 - e^(-1/scale), accurate for large scales
    return rng.geometric(success, size) - rng.geometric(success, size)


def noisy_histogram(
    labels: np.ndarray, num_values: int, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Counts of the labels 0..num_values-1 plus discrete Laplace noise of scale 2/ε (may be <0)."""
    num_values = check_num_classes(num_values)
    labels = check_labels(labels, num_values)
    counts = np.bincount(labels, minlength=num_values)
    scale = HISTOGRAM_SENSITIVITY / check_epsilon(epsilon)
    return counts + discrete_laplace(scale, num_values, rng)


def histogram_prior(noisy_counts: np.ndarray) -> np.ndarray:
    """A probability vector from noisy counts: clamp at zero, normalise; all zero gives uniform."""
    counts = np.asarray(noisy_counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size < 2 or not np.all(np.isfinite(counts)):
        raise InvalidInputError("noisy counts must be a 1-D array of at least 2 finite numbers")
    clamped = np.maximum(counts, 0.0)
    total = clamped.sum()
    return clamped / total if total > 0 else np.full(counts.size, 1.0 / counts.size)
