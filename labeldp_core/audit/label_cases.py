"""Audit cases of the label-level mechanisms: one label (or one output vector) a vs b.

Each case calls the project's own release function on ``trials`` copies of one of two
neighbouring inputs and reduces every output to a score. Where the privacy loss has a closed
form the score is the log-likelihood ratio (up to a positive factor), so thresholding it gives
the most powerful events (Neyman-Pearson); the tight cases then reach their claim exactly on the
event where the loss is largest. Scores are rounded to 9 decimals so that outputs on that event,
equal in exact arithmetic, land on one value.

Controls are the real functions called the wrong way: noise scaled for the wrong sensitivity, or
a randomized response step run at more than the budget it reports.
"""

from collections.abc import Callable

import numpy as np

from labeldp_core.audit.engine import AuditCase
from labeldp_core.mechanisms import (
    alibi_posterior,
    laplace_one_hot,
    laplace_outputs,
    laplace_regression,
    optimal_bins,
    randomized_response,
    rr_on_bins,
    rr_with_prior,
)
from labeldp_core.validation import MAX_EPSILON, check_epsilon

__all__ = [
    "AUDIT_CLASSES",
    "RR_PRIOR",
    "SOFTMAX_PAIR",
    "alibi_case",
    "laplace_case",
    "laplace_regression_case",
    "laplace_regression_sensitivity_one_control",
    "laplace_sensitivity_one_control",
    "rr_bins_case",
    "rr_case",
    "rr_overspending_control",
    "rr_prior_case",
    "rr_prior_overspending_control",
    "rr_prior_tutorial_control",
    "softmax_laplace_case",
    "softmax_sensitivity_one_control",
]

AUDIT_CLASSES = 10
_DIGITS = 9
#: A fixed prior over the 10 classes with labels 0 and 1 tied on top: at every epsilon the top-k*
#: set keeps both (two members beat one as soon as ε > 0), so the release of 0 or 1 is k*-ary RR
#: inside the set, the tight pair.
RR_PRIOR = np.array([0.35, 0.35, 0.1, 0.05, 0.05, 0.04, 0.03, 0.01, 0.01, 0.01])
#: Two probability vectors with disjoint supports: L1 distance 2, the largest there is.
SOFTMAX_PAIR = (
    np.array([0.6, 0.4, 0, 0, 0, 0, 0, 0, 0, 0]),
    np.array([0, 0, 0.7, 0.3, 0, 0, 0, 0, 0, 0]),
)
_LABEL_PAIR = "one label: 0 vs 1 (replace-one)"

Release = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _overspent(epsilon: float, factor: float) -> float:
    """A control's real budget, ``factor`` times its claim (capped where epsilon is accepted)."""
    return min(factor * check_epsilon(epsilon), MAX_EPSILON)


def _labels_case(
    name: str, release: Release, claimed: float, neighbours: str = _LABEL_PAIR,
    is_control: bool = False,
) -> AuditCase:  # fmt: skip
    """Neighbours: one label equal to 0 vs equal to 1; the score is 'released label is 0'."""

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        released = release(np.full(trials, which), rng)
        return (released == 0).astype(np.float64)

    return AuditCase(name, claimed, 0.0, neighbours, sample, is_control)


def rr_case(epsilon: float) -> AuditCase:
    """K-ary randomized response at the claimed epsilon."""
    return _labels_case(
        "rr", lambda labels, rng: randomized_response(labels, epsilon, AUDIT_CLASSES, rng), epsilon
    )


def rr_overspending_control(epsilon: float) -> AuditCase:
    """Randomized response that runs at 2 epsilon while claiming epsilon: must be flagged."""
    return _labels_case(
        "rr (control: runs at 2ε, claims ε)",
        lambda labels, rng: randomized_response(labels, _overspent(epsilon, 2), AUDIT_CLASSES, rng),
        epsilon,
        is_control=True,
    )


def rr_prior_case(epsilon: float) -> AuditCase:
    """RR-with-prior with the fixed :data:`RR_PRIOR` for every copy; labels 0 vs 1.

    Both labels are the prior's most likely ones, tied, so they are in the top-k* set at every
    epsilon; there the release is k*-ary RR and the event 'released 0' has the ratio e^ε exactly.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return rr_with_prior(
            labels, np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES)), epsilon, rng
        )

    return _labels_case(
        "rr-prior", release, epsilon, "one label: 0 vs 1 (replace-one), fixed prior"
    )


def rr_prior_overspending_control(epsilon: float) -> AuditCase:
    """RR-with-prior whose RR step runs at 2ε while reporting ε: must be flagged.

    The slip the budget split guards against: the prior took half of a 2ε budget and the RR step
    was run at the whole 2ε instead of the ε left, so the release spends twice what it reports.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        priors = np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES))
        return rr_with_prior(labels, priors, _overspent(epsilon, 2), rng)

    return _labels_case(
        "rr-prior (control: RR step at 2ε, reports ε)", release, epsilon,
        "one label: 0 vs 1 (replace-one), fixed prior", is_control=True,
    )  # fmt: skip


def rr_prior_tutorial_control(epsilon: float) -> AuditCase:
    """A seed tutorial's slip: a 0.1ε prior, then RR at 1.95ε, claiming ε (really 2.05ε).

    The prior's share is not what the audit sees (its histogram is not in the release audited
    here); the RR step alone already spends 1.95ε and must be flagged.
    """

    def release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        priors = np.broadcast_to(RR_PRIOR, (labels.size, AUDIT_CLASSES))
        return rr_with_prior(labels, priors, _overspent(epsilon, 1.95), rng)

    return _labels_case(
        "rr-prior (control: RR step at 1.95ε after a 0.1ε prior, claims ε)", release, epsilon,
        "one label: 0 vs 1 (replace-one), fixed prior", is_control=True,
    )  # fmt: skip


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

    return AuditCase(name, claimed, 0.0, _LABEL_PAIR, sample, control)


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
        _overspent(epsilon, 2),
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
        return np.round(np.clip(log_ratio, -1e6, 1e6), _DIGITS)

    return AuditCase(
        "alibi", epsilon, 0.0, f"{_LABEL_PAIR}; score: the posterior's log odds", sample
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
        _overspent(epsilon, AUDIT_CLASSES - 1), epsilon, control=True,
    )  # fmt: skip


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


def _softmax_score(noisy: np.ndarray) -> np.ndarray:
    """The log-likelihood ratio of :data:`SOFTMAX_PAIR`, times b: sum of |o - q| - |o - p|."""
    p, q = SOFTMAX_PAIR
    support = (p > 0) | (q > 0)
    block = noisy[:, support]
    score = (np.abs(block - q[support]) - np.abs(block - p[support])).sum(axis=1)
    return np.round(score, _DIGITS)


def _softmax_case(name: str, release_epsilon: float, claimed: float, control: bool) -> AuditCase:
    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        rows = np.broadcast_to(SOFTMAX_PAIR[which], (trials, AUDIT_CLASSES))
        return _softmax_score(laplace_outputs(rows, release_epsilon, rng))

    neighbours = "one output vector: two probability vectors at L1 distance 2 (local DP)"
    return AuditCase(name, claimed, 0.0, neighbours, sample, control)


def softmax_laplace_case(epsilon: float) -> AuditCase:
    """Laplace on softmax outputs, scale 2/ε; the largest loss has probability 1/16 here."""
    return _softmax_case("softmax-laplace", epsilon, epsilon, control=False)


def softmax_sensitivity_one_control(epsilon: float) -> AuditCase:
    """Softmax outputs with noise for sensitivity 1 (scale 1/ε), the slip the page warns about."""
    return _softmax_case(
        "softmax-laplace (control: scale 1/ε)", _overspent(epsilon, 2), epsilon, control=True
    )
