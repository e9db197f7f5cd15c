"""The Laplace family's audit cases and controls: one-hot, ALIBI, regression, RR-on-bins.

The shared reasoning (scores, controls) is in :mod:`labeldp_core.release_audit.pairs`.
"""

import numpy as np

from labeldp_core.families.laplace_labels.alibi_release import alibi_posterior
from labeldp_core.families.laplace_labels.release import laplace_one_hot, laplace_regression
from labeldp_core.families.laplace_labels.rr_bins_release import optimal_bins, rr_on_bins
from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, LABEL_PAIR, SCORE_DIGITS, overspent

__all__ = [
    "alibi_case",
    "laplace_case",
    "laplace_regression_case",
    "laplace_regression_sensitivity_one_control",
    "laplace_sensitivity_one_control",
    "rr_bins_case",
]


def _one_hot_score(noisy: np.ndarray) -> np.ndarray:
    """The log-likelihood ratio of labels 0 vs 1, times b, for Laplace one-hot vectors.

    log p(o | 0) - log p(o | 1) = (g(o_0) - g(o_1)) / b with g(x) = |x| - |x - 1|, which is
    clip(2x - 1, -1, 1): the other coordinates cancel. Its largest value, 2, is reached when
    o_0 >= 1 and o_1 <= 0, which has probability 1/4 for label 0 and e^-ε / 4 for label 1.
    """
    clipped = np.clip(2.0 * noisy[:, :2] - 1.0, -1.0, 1.0)
    return clipped[:, 0] - clipped[:, 1]


def _one_hot_case(name: str, release_epsilon: float, claimed: float, control: bool) -> AuditCase:
    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        labels = np.full(trials, which)
        return _one_hot_score(laplace_one_hot(labels, release_epsilon, AUDIT_CLASSES, rng))

    return AuditCase(name, claimed, 0.0, LABEL_PAIR, sample, control)


def laplace_case(epsilon: float) -> AuditCase:
    """Laplace on one-hot labels, scale 2/ε, scored by the log-likelihood ratio."""
    return _one_hot_case("laplace", epsilon, epsilon, control=False)


def laplace_sensitivity_one_control(epsilon: float) -> AuditCase:
    """One-hot Laplace scaled for sensitivity 1 (scale 1/ε) while claiming ε: must be flagged.

    ``laplace_one_hot`` at 2ε draws exactly Lap(0, 1/ε): the slip of forgetting that a changed
    label moves two coordinates. The real loss is 2ε.
    """
    return _one_hot_case(
        "laplace (control: scale 1/ε, sensitivity 1)",
        overspent(epsilon, 2),
        epsilon,
        control=True,
    )


def alibi_case(epsilon: float) -> AuditCase:
    """ALIBI's release (Laplace one-hot at ε) scored through its own Bayesian post-processing.

    With a uniform prior, log P(0 | o) - log P(1 | o) from :func:`alibi_posterior` is exactly
    the log-likelihood ratio of the two labels, so the posterior is itself the best test.
    """

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        noisy = laplace_one_hot(np.full(trials, which), epsilon, AUDIT_CLASSES, rng)
        posterior = alibi_posterior(noisy, epsilon)
        with np.errstate(divide="ignore"):
            log_ratio = np.log(posterior[:, 0]) - np.log(posterior[:, 1])
        return np.round(np.clip(log_ratio, -1e6, 1e6), SCORE_DIGITS)

    return AuditCase(
        "alibi", epsilon, 0.0, f"{LABEL_PAIR}; score: the posterior's log odds", sample
    )


def _regression_case(name: str, release_epsilon: float, claimed: float, control: bool) -> AuditCase:
    high = float(AUDIT_CLASSES - 1)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        values = np.full(trials, high * which)
        return laplace_regression(values, release_epsilon, 0.0, high, rng)

    neighbours = f"one value: 0 vs {high:g} in [0, {high:g}] (replace-one)"
    return AuditCase(name, claimed, 0.0, neighbours, sample, control)


def laplace_regression_case(epsilon: float) -> AuditCase:
    """Laplace on a regression label in [0, K-1], scale (K-1)/ε, clamped; the lowest vs highest.

    The score is the released value itself (the likelihood ratio is monotone in it). The clamp
    piles mass 1/2 at 0 for the value 0 and e^-ε / 2 for the value K-1: ratio e^ε exactly.
    """
    return _regression_case("laplace-regression", epsilon, epsilon, control=False)


def laplace_regression_sensitivity_one_control(epsilon: float) -> AuditCase:
    """Regression Laplace scaled for sensitivity 1 (scale 1/ε) on values 0..K-1: must be flagged."""
    return _regression_case(
        "laplace-regression (control: scale 1/ε)",
        overspent(epsilon, AUDIT_CLASSES - 1),
        epsilon,
        control=True,
    )


def rr_bins_case(epsilon: float) -> AuditCase:
    """RR-on-bins built by :func:`optimal_bins` for a uniform prior on 0..K-1; 0 vs K-1.

    The two values sit in the first and last bin; the score is the released output value and the
    event 'the first bin's output' has the ratio e^ε exactly.
    """
    values = np.arange(AUDIT_CLASSES, dtype=np.float64)
    bins = optimal_bins(values, np.full(AUDIT_CLASSES, 1.0 / AUDIT_CLASSES), epsilon)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        return rr_on_bins(np.full(trials, values[-1] * which), bins, rng)

    neighbours = f"one value: 0 vs {values[-1]:g} (replace-one), {bins.num_bins} bins"
    return AuditCase("rr-bins", epsilon, 0.0, neighbours, sample)
