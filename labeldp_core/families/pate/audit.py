"""PATE's audit cases: neighbours differ in one teacher's vote.

PATE's noisy vote counts on one query whose vote histograms differ by one teacher's vote (the
argmax that LNMax and GNMax release is post-processing of them), for LNMax (Laplace, claimed pure
ε per query) and GNMax (Gaussian at the sigma the project's PATE accounting calibrates, claimed at
a point of the Gaussian mechanism's exact privacy curve). Every case calls the project's release
function. The DP prototypes' cases are in :mod:`dppl_cases`, DP-SGD's in :mod:`dpsgd_case`.
"""

import numpy as np

from labeldp_core.accounting.gaussian_curve import gaussian_point
from labeldp_core.base.validation import check_epsilon
from labeldp_core.families.pate.accounting import calibrate_noise, data_independent_epsilon
from labeldp_core.families.pate.release import noisy_vote_counts
from labeldp_core.release_audit.engine import GAUSSIAN_TAIL, AuditCase

__all__ = [
    "AUDIT_DELTA",
    "gnmax_case",
    "lnmax_case",
    "lnmax_sensitivity_one_control",
    "lnmax_truncated_noise_control",
    "pate_vote_pair",
]

#: δ of GNMax's approximate-DP claim.
AUDIT_DELTA = 1e-5
#: The audited query's votes for its two classes.
_VOTES = (60, 50)
#: Scores are rounded so that outputs with equal likelihood ratio land on one value.
_DIGITS = 9


def pate_vote_pair() -> tuple[np.ndarray, np.ndarray]:
    """Vote counts of one binary query on two neighbouring teacher ensembles.

    Ensemble 0 votes (60, 50); in ensemble 1 one teacher has moved its vote from class 0 to
    class 1: two counts change by one each (L1 distance 2, L2 distance sqrt(2)).
    """
    first = np.array([[_VOTES[0], _VOTES[1]]])
    return first, first + np.array([[-1, 1]])


def _noisy_counts_case(
    name: str, kind: dict[str, float], claimed: tuple[float, float], note: str, control: bool
) -> AuditCase:
    """The noisy vote counts of :func:`noisy_vote_counts` on :func:`pate_vote_pair`.

    The argmax that LNMax and GNMax release is post-processing of these counts, so the counts
    are where the noise's calibration shows; the score is the log-likelihood ratio of the two
    ensembles up to a positive factor (for Laplace the L1 distances' difference, at most 2; for
    the Gaussian the projection on the moved vote).
    """
    pair = pate_vote_pair()

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.broadcast_to(pair[which], (trials, 2))
        noisy = noisy_vote_counts(counts, rng, **kind)
        if "laplace_scale" in kind:
            return np.round(
                (np.abs(noisy - pair[1]) - np.abs(noisy - pair[0])).sum(axis=1), _DIGITS
            )
        return (noisy[:, 1] - noisy[:, 0]) / np.sqrt(2.0)

    neighbours = (
        f"one query's noisy vote counts, {int(pair[0].sum())} teachers: votes "
        f"{pair[0][0].tolist()} vs {pair[1][0].tolist()} (one teacher's vote moved); {note}"
    )
    return AuditCase(name, claimed[0], claimed[1], neighbours, sample, control)


def lnmax_case(epsilon: float) -> AuditCase:
    """LNMax's noisy counts at Laplace scale 2/ε, which the project claims is ε-DP per query."""
    epsilon = check_epsilon(epsilon)
    kind = {"laplace_scale": 2.0 / epsilon}
    return _noisy_counts_case("pate (LNMax, one query)", kind, (epsilon, 0.0), "scale 2/ε", False)


def lnmax_sensitivity_one_control(epsilon: float) -> AuditCase:
    """LNMax at scale 1/ε claiming ε: one vote moves two counts, so this is 2ε."""
    epsilon = check_epsilon(epsilon)
    kind = {"laplace_scale": 1.0 / epsilon}
    return _noisy_counts_case(
        "pate (control: LNMax scale 1/ε)", kind, (epsilon, 0.0), "scale 1/ε", True
    )


def lnmax_truncated_noise_control(epsilon: float) -> AuditCase:
    """LNMax's noise truncated to an integer before it is added (``count + int(noise)``).

    A slip of tutorials that want integer counts: truncation sends all of (-1, 1) to 0, which
    doubles its probability, so a count that moves by one costs its share of ε plus ln 2, on
    each of the two counts a moved vote changes. Claims ε: must be flagged.
    """
    epsilon = check_epsilon(epsilon)
    pair, scale = pate_vote_pair(), 2.0 / epsilon

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.broadcast_to(pair[which], (trials, 2))
        noise = noisy_vote_counts(np.zeros_like(counts), rng, laplace_scale=scale)
        noisy = counts + np.trunc(noise)
        # The log-likelihood ratio of the two ensembles under the truncated noise's own pmf.
        log_ratio = _log_truncated_pmf(noisy - pair[0], scale) - _log_truncated_pmf(
            noisy - pair[1], scale
        )
        return np.round(log_ratio.sum(axis=1), _DIGITS)

    neighbours = (
        f"one query's noisy vote counts, votes {pair[0][0].tolist()} vs {pair[1][0].tolist()} "
        "(one teacher's vote moved); Laplace noise of scale 2/ε truncated to an integer"
    )
    return AuditCase(
        "pate (control: LNMax noise truncated, count + int(noise))",
        epsilon,
        0.0,
        neighbours,
        sample,
        is_control=True,
    )


def _log_truncated_pmf(values: np.ndarray, scale: float) -> np.ndarray:
    """Log P(int(N) = x) for N ~ Laplace(scale): (-1, 1) all lands on 0, twice its share."""
    magnitude = np.abs(values)
    at_zero = np.log(-np.expm1(-1.0 / scale))
    elsewhere = np.log(0.5) - magnitude / scale + np.log(-np.expm1(-1.0 / scale))
    return np.where(magnitude == 0, at_zero, elsewhere)


def gnmax_case(epsilon: float) -> AuditCase:
    """GNMax's noisy counts with the sigma PATE calibrates for ε at δ = 1e-5 (one query).

    The claim is the point of the Gaussian mechanism's exact curve at that sigma (L2 sensitivity
    sqrt(2)) where the audit measures best: tighter than the RDP accounting's (ε, 1e-5), so less
    noise than calibrated cannot hide in the accountant's slack.
    """
    sigma = calibrate_noise(epsilon, 1, AUDIT_DELTA, aggregator="gnmax")
    accounted = data_independent_epsilon(1, AUDIT_DELTA, aggregator="gnmax", noise=sigma)
    note = (
        f"sigma {sigma:.4g}, accounted ({accounted:.3g}, {AUDIT_DELTA:g}); claim: the Gaussian "
        "mechanism's exact curve at that sigma"
    )
    claim = gaussian_point(np.sqrt(2.0) / sigma, GAUSSIAN_TAIL)
    return _noisy_counts_case(
        "pate (GNMax, one query)", {"gaussian_sigma": sigma}, claim, note, False
    )
