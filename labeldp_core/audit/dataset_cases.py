"""Audit cases where neighbours differ in one teacher or one example: PATE, DPPL-Public, DP-SGD.

- PATE's noisy argmax on one query whose vote histograms differ by one teacher's vote, for LNMax
  (Laplace, claimed pure ε per query) and GNMax (Gaussian, claimed (ε, δ) from the project's
  PATE accounting of one query).
- DPPL-Public's exponential mechanism on the utilities of a class with and without one example,
  and the order in which Top-K releases its picks.
- The DP-SGD noise step on a fixed clipped gradient sum with and without one example's clipped
  gradient, claimed with ``dp_accounting`` for one full-batch step.

Every case calls the project's release function (for DP-SGD, whose mechanism is merged
separately, NumPy's Gaussian noise on the sum, exactly the step the training loop takes).
"""

import dp_accounting
import numpy as np
from dp_accounting import rdp

from labeldp_core.accounting import calibrate_noise, data_independent_epsilon
from labeldp_core.audit.engine import AuditCase
from labeldp_core.mechanisms import noisy_argmax, public_prototype_indices
from labeldp_core.validation import check_epsilon

__all__ = [
    "AUDIT_DELTA",
    "DPPL_CANDIDATES",
    "DPSGD_DIMENSION",
    "TOPK_ORDER_PAIR",
    "dppl_public_case",
    "dppl_public_replace_one_control",
    "dppl_topk_case",
    "dppl_topk_order_case",
    "dppl_topk_utility_order_control",
    "dpsgd_case",
    "dpsgd_clip_norm_control",
    "dpsgd_noise_multiplier",
    "gnmax_case",
    "lnmax_case",
    "lnmax_sensitivity_one_control",
    "one_step_epsilon",
    "pate_vote_pair",
]

#: δ of the approximate-DP claims (GNMax, DP-SGD).
AUDIT_DELTA = 1e-5
#: Candidates of the DPPL-Public class audited, all with the same utility without the example.
DPPL_CANDIDATES = 20
#: Length of the DP-SGD gradient; only its projection on the extra example's gradient matters.
DPSGD_DIMENSION = 10
#: Margin of the audited PATE query, in noise scales: far enough in the tail that the noisy
#: argmax's loss nears its bound, close enough that the event is not rare.
_MARGIN_SCALES = {"lnmax": 4.0, "gnmax": 3.0}
_OTHER_VOTES = 50


def pate_vote_pair(noise: float, aggregator: str) -> tuple[np.ndarray, np.ndarray]:
    """Vote counts of one binary query on two neighbouring teacher ensembles.

    Ensemble 0 votes (m + 50, 50) with margin m of about 4 Laplace scales (3 Gaussian sigmas)
    plus 2; in ensemble 1 one teacher has moved its vote from class 0 to class 1. The event
    'class 1 released' is then likelier for ensemble 1, in the tail where the ratio nears e^ε.
    """
    margin = 2 + round(_MARGIN_SCALES[aggregator] * noise)
    first = np.array([[margin + _OTHER_VOTES, _OTHER_VOTES]])
    second = first + np.array([[-1, 1]])
    return first, second


def _noisy_argmax_case(
    name: str, aggregator: str, noise: float, claimed: float, delta: float, control: bool = False
) -> AuditCase:
    pair = pate_vote_pair(noise, aggregator)
    kind = {"laplace_scale": noise} if aggregator == "lnmax" else {"gaussian_sigma": noise}

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.broadcast_to(pair[which], (trials, 2))
        return noisy_argmax(counts, rng, **kind).astype(np.float64)

    teachers = int(pair[0].sum())
    neighbours = (
        f"one query, {teachers} teachers: votes {pair[0][0].tolist()} vs {pair[1][0].tolist()} "
        "(one teacher's vote moved)"
    )
    return AuditCase(name, claimed, delta, neighbours, sample, control)


def lnmax_case(epsilon: float) -> AuditCase:
    """LNMax on one query at Laplace scale 2/ε, which the project claims is ε-DP per query."""
    epsilon = check_epsilon(epsilon)
    return _noisy_argmax_case("pate (LNMax, one query)", "lnmax", 2.0 / epsilon, epsilon, 0.0)


def lnmax_sensitivity_one_control(epsilon: float) -> AuditCase:
    """LNMax at scale 1/ε claiming ε: one vote moves two counts, so this is up to 2ε."""
    epsilon = check_epsilon(epsilon)
    return _noisy_argmax_case(
        "pate (control: LNMax scale 1/ε)", "lnmax", 1.0 / epsilon, epsilon, 0.0, control=True
    )


def gnmax_case(epsilon: float) -> AuditCase:
    """GNMax on one query with the sigma the PATE experiment calibrates for ε at δ = 1e-5.

    The claim is the project's data-independent (ε, δ) of that one query.
    """
    sigma = calibrate_noise(epsilon, 1, AUDIT_DELTA, aggregator="gnmax")
    claimed = data_independent_epsilon(1, AUDIT_DELTA, aggregator="gnmax", noise=sigma)
    return _noisy_argmax_case("pate (GNMax, one query)", "gnmax", sigma, claimed, AUDIT_DELTA)


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

    All :data:`DPPL_CANDIDATES` candidates tie at 10 without the example; it scores 1 on
    candidates 0 and 1, so only the set {0, 1} gains (its worst member's utility rises by 1).
    The score is whether that set was released: with C(20, 2) = 190 sets its probability ratio
    is 190 e^ε / (e^ε + 189), close to e^ε.
    """
    epsilon = check_epsilon(epsilon)
    base = np.full(DPPL_CANDIDATES, 10.0)
    added = np.zeros(DPPL_CANDIDATES)
    added[:2] = 1.0
    pair = (base + added, base)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        utilities = np.broadcast_to(pair[which], (trials, DPPL_CANDIDATES))
        chosen = public_prototype_indices(utilities, epsilon, rng, k=2)
        return np.all(chosen == [0, 1], axis=1).astype(np.float64)

    neighbours = (
        f"one class, {DPPL_CANDIDATES} tied candidates, k = 2: with and without one private "
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


def _rdp_accountant() -> dp_accounting.PrivacyAccountant:
    return rdp.RdpAccountant()


def _full_batch_step(noise_multiplier: float) -> dp_accounting.DpEvent:
    return dp_accounting.PoissonSampledDpEvent(1.0, dp_accounting.GaussianDpEvent(noise_multiplier))


def one_step_epsilon(noise_multiplier: float, delta: float = AUDIT_DELTA) -> float:
    """ε of one full-batch DP-SGD step (sample rate 1) by ``dp_accounting``'s RDP accountant."""
    accountant = _rdp_accountant()
    accountant.compose(_full_batch_step(noise_multiplier))
    return float(accountant.get_epsilon(delta))


def dpsgd_noise_multiplier(epsilon: float, delta: float = AUDIT_DELTA) -> float:
    """The noise multiplier whose one full-batch step is (ε, δ)-DP by the RDP accountant."""
    epsilon = check_epsilon(epsilon)
    return float(
        dp_accounting.calibrate_dp_mechanism(_rdp_accountant, _full_batch_step, epsilon, delta)
    )


def _dpsgd_case(name: str, epsilon: float, clip_norm: float, forgets_clip_norm: bool) -> AuditCase:
    """One noisy gradient sum, with and without one example's gradient of norm ``clip_norm``.

    The output is the clipped gradient sum plus N(0, (sigma C)^2 I), or N(0, sigma^2 I) if
    ``forgets_clip_norm`` (the control). The score is the output's projection on the example's
    gradient, in units of C^2: the log-likelihood ratio of the two sums up to a positive factor
    and a shift.
    """
    sigma = dpsgd_noise_multiplier(epsilon)
    claimed = one_step_epsilon(sigma)
    std = sigma if forgets_clip_norm else sigma * clip_norm
    fixed = np.random.default_rng(20240601)
    others = fixed.normal(size=DPSGD_DIMENSION)  # the rest of the batch's clipped sum
    direction = fixed.normal(size=DPSGD_DIMENSION)
    example = clip_norm * direction / np.linalg.norm(direction)
    sums = (others + example, others)

    def sample(which: int, trials: int, rng: np.random.Generator) -> np.ndarray:
        released = sums[which] + rng.normal(0.0, std, size=(trials, DPSGD_DIMENSION))
        return (released - others) @ example / clip_norm**2

    neighbours = (
        f"one full-batch step: gradient sum with and without one example (add/remove), "
        f"C = {clip_norm:g}, noise multiplier {sigma:.4g}"
    )
    return AuditCase(name, claimed, AUDIT_DELTA, neighbours, sample, forgets_clip_norm)


def dpsgd_case(epsilon: float) -> AuditCase:
    """DP-SGD's noise step, N(0, (sigma C)^2) on the clipped sum, sigma calibrated for ε."""
    return _dpsgd_case("dpsgd (noise step)", epsilon, clip_norm=1.0, forgets_clip_norm=False)


def dpsgd_clip_norm_control(epsilon: float) -> AuditCase:
    """Gradients clipped at C = 3 but noise sigma instead of sigma C: must be flagged."""
    return _dpsgd_case(
        "dpsgd (control: noise σ, forgets C = 3)", epsilon, clip_norm=3.0, forgets_clip_norm=True
    )
