"""The DP prototypes' audit cases: one class's release with and without one private example.

- DPPL-Public's exponential mechanism on a class's utilities (add/remove), and the same ε claimed
  under replace-one as its control.
- DPPL-Public Top-K's joint draw of a set, and the order in which it releases its picks, with
  the order by utility (the release before the fix) as the control.
- DPPL-Mean's Gaussian class sum at the rho calibrated to (ε, δ), claimed at a point of the
  Gaussian mechanism's exact curve, with the old calibration rho = ε²/2 (which claimed (ε, δ)
  while spending far more) as the control.

Every case calls the project's release function (``public_prototype_indices``,
``private_class_means``) on many classes at once: each class is one independent trial.
"""

import math

import numpy as np

from labeldp_core.accounting.gaussian_curve import gaussian_point
from labeldp_core.accounting.zcdp import rho_for_approx_dp, zcdp_of_pure_dp
from labeldp_core.base.validation import check_epsilon
from labeldp_core.families.prototypes.release import private_class_means, public_prototype_indices
from labeldp_core.release_audit.engine import GAUSSIAN_TAIL, AuditCase

__all__ = [
    "DPPL_CANDIDATES",
    "MEAN_DELTA",
    "TOPK_CANDIDATES",
    "TOPK_ORDER_PAIR",
    "dppl_mean_case",
    "dppl_mean_old_calibration_control",
    "dppl_public_case",
    "dppl_public_replace_one_control",
    "dppl_topk_case",
    "dppl_topk_order_case",
    "dppl_topk_utility_order_control",
]

#: Candidates of the DPPL-Public class audited, all with the same utility without the example:
#: the more there are, the closer the best event's ratio comes to e^ε (0.97 ε for 50), the
#: fewer, the likelier (and so the better measured) that event.
DPPL_CANDIDATES = 50
#: Candidates of the Top-K class audited (k = 2): C(12, 2) = 66 sets, so the one set that gains
#: is likely enough (4%) to be measured well, and its ratio is 0.974 of e^ε.
TOPK_CANDIDATES = 12
#: delta of DPPL-Mean's claim (the run's default).
MEAN_DELTA = 1e-5
#: Dimension of the audited embeddings; the example lies on axis 0, the others off it.
_MEAN_DIMENSION = 4
_MEAN_OTHERS = 3


def _dppl_case(name: str, epsilon: float, replace: bool) -> AuditCase:
    """The exponential mechanism of :func:`public_prototype_indices` on one class's utilities.

    Every candidate has utility 10 without the audited example; the example scores 1 on
    candidate 0 and 0 on the others (the extremes of the [0, 1] score). With ``replace``, the
    second dataset instead holds another example scoring 0 on candidate 0 and 1 on the rest.
    """
    epsilon = check_epsilon(epsilon)
    base = np.full(DPPL_CANDIDATES, 10.0)
    added = np.zeros(DPPL_CANDIDATES)
    added[0] = 1.0
    other = base + (1.0 - added) if replace else base
    pair = (base + added, other)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        utilities = np.broadcast_to(pair[which], (trials, DPPL_CANDIDATES))
        chosen = public_prototype_indices(utilities, epsilon, rng)[:, 0]
        return added[chosen]  # the example's score of the pick: the log-likelihood ratio / ε

    if replace:
        neighbours = "one class: its example replaced by another (replace-one)"
    else:
        neighbours = "one class: with and without one private example (add/remove)"
    neighbours += f", {DPPL_CANDIDATES} tied candidates"
    return AuditCase(name, epsilon, 0.0, neighbours, sample, is_control=replace)


def dppl_public_case(epsilon: float) -> AuditCase:
    """DPPL-Public under add/remove, the relation its ε is claimed for."""
    return _dppl_case("dppl-public", epsilon, replace=False)


def dppl_public_replace_one_control(epsilon: float) -> AuditCase:
    """DPPL-Public's ε claimed under replace-one, where it is 2ε: must be flagged."""
    return _dppl_case("dppl-public (control: ε claimed under replace-one)", epsilon, replace=True)


def dppl_topk_case(epsilon: float) -> AuditCase:
    """DPPL-Public Top-K's joint selection (k = 2) with and without one example (add/remove).

    All :data:`TOPK_CANDIDATES` candidates tie at 10 without the example; it scores 1 on
    candidates 0 and 1, so only the set {0, 1} gains (its worst member's utility rises by 1).
    The score is whether that set was released: with C(12, 2) = 66 sets its probability ratio
    is 66 e^ε / (e^ε + 65), close to e^ε.
    """
    epsilon = check_epsilon(epsilon)
    base = np.full(TOPK_CANDIDATES, 10.0)
    added = np.zeros(TOPK_CANDIDATES)
    added[:2] = 1.0
    pair = (base + added, base)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        utilities = np.broadcast_to(pair[which], (trials, TOPK_CANDIDATES))
        chosen = public_prototype_indices(utilities, epsilon, rng, k=2)
        return np.all(chosen == [0, 1], axis=1).astype(np.float64)

    neighbours = (
        f"one class, {TOPK_CANDIDATES} tied candidates, k = 2: with and without one private "
        "example scoring 1 on candidates 0 and 1 (add/remove)"
    )
    return AuditCase("dppl-topk (the released set)", epsilon, 0.0, neighbours, sample)


#: One class's utilities of four candidates, without and with an example scoring 1 on
#: candidate 1: ordered by utility, the picks {0, 1} come out as [0, 1] and [1, 0].
TOPK_ORDER_PAIR = (np.array([10.0, 9.5, 0.0, 0.0]), np.array([10.0, 10.5, 0.0, 0.0]))


def _topk_order_case(name: str, epsilon: float, by_utility: bool) -> AuditCase:
    """DPPL-Public Top-K (k = 2) on :data:`TOPK_ORDER_PAIR`; score: the candidate listed first.

    With ``by_utility`` the release lists the picks best first (the release before the fix,
    which the exponential mechanism's guarantee does not cover): the control.
    """
    epsilon = check_epsilon(epsilon)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        utilities = np.broadcast_to(TOPK_ORDER_PAIR[which], (trials, TOPK_ORDER_PAIR[0].size))
        chosen = public_prototype_indices(utilities, epsilon, rng, k=2)
        if by_utility:
            best_first = np.argsort(-np.take_along_axis(utilities, chosen, axis=1), axis=1)
            chosen = np.take_along_axis(chosen, best_first, axis=1)
        return chosen[:, 0].astype(np.float64)

    neighbours = (
        "one class, 4 candidates, k = 2: with and without one example scoring 1 on candidate 1 "
        "(add/remove); the event is on the order of the released picks"
    )
    return AuditCase(name, epsilon, 0.0, neighbours, sample, is_control=by_utility)


def dppl_topk_order_case(epsilon: float) -> AuditCase:
    """DPPL-Public Top-K's release, sorted by candidate index: the order must cost nothing."""
    return _topk_order_case("dppl-topk (order of the released set)", epsilon, by_utility=False)


def dppl_topk_utility_order_control(epsilon: float) -> AuditCase:
    """The same picks listed best first, as released before the fix: must be flagged."""
    return _topk_order_case("dppl-topk (control: picks listed best first)", epsilon, True)


def _dppl_mean_case(name: str, epsilon: float, rho: float, control: bool) -> AuditCase:
    """DPPL-Mean (one CoinPress step: the class's noisy sum) with and without one example.

    Every trial is a class of three unit embeddings off axis 0; the example is the unit vector on
    axis 0 (norm 1, the data ball's radius: the largest change of the sum). The score is the
    released prototype's axis-0 coordinate: the log-likelihood ratio up to a factor.
    """
    # The claim is the exact Gaussian curve of the rho runs use (sensitivity 1, noise
    # 1/sqrt(2 rho): mu = sqrt(2 rho)), at the point where the audit measures best.
    claimed, delta = gaussian_point(
        math.sqrt(2 * rho_for_approx_dp(epsilon, MEAN_DELTA)), GAUSSIAN_TAIL
    )
    others = np.eye(_MEAN_DIMENSION)[1 : 1 + _MEAN_OTHERS]
    example = np.eye(_MEAN_DIMENSION)[:1]

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        points = np.vstack([others, example]) if which == 0 else others
        embeddings = np.tile(points, (trials, 1))
        labels = np.repeat(np.arange(trials), points.shape[0])
        release = private_class_means(embeddings, labels, trials, rho, rng, steps=1)
        return release.prototypes[:, 0]

    neighbours = (
        f"one class: {_MEAN_OTHERS} unit embeddings with and without one more on another axis "
        f"(add/remove), one CoinPress step at rho = {rho:.4g}; claim: the exact Gaussian curve "
        f"of the rho whose (ε, {MEAN_DELTA:g}) runs report"
    )
    return AuditCase(name, claimed, delta, neighbours, sample, is_control=control)


def dppl_mean_case(epsilon: float) -> AuditCase:
    """DPPL-Mean at the rho whose (ε, δ = 1e-5) conversion is the ε asked (what runs use)."""
    epsilon = check_epsilon(epsilon)
    return _dppl_mean_case(
        "dppl-mean (one step)", epsilon, rho_for_approx_dp(epsilon, MEAN_DELTA), control=False
    )


def dppl_mean_old_calibration_control(epsilon: float) -> AuditCase:
    """Rho = ε²/2 (the calibration before this version) claiming (ε, δ): must be flagged."""
    epsilon = check_epsilon(epsilon)
    return _dppl_mean_case(
        "dppl-mean (control: rho = ε²/2 claiming ε)", epsilon, zcdp_of_pure_dp(epsilon), True
    )
