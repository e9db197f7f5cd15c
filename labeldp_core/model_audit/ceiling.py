"""Claims no canary design can test, said with the reason before anything trains.

A family may declare the most any canary audit can prove of its model
(:class:`~labeldp_core.families.family.AuditCeiling`): PATE's student sees a training label only
through one teacher's vote per query, under noise calibrated for the claim over every query, so
even its run at twice the budget shows a canary far less than the claim; a model trained on the
argmax of Laplace-noised one-hot vectors sees K-ary randomized response at a smaller ε than the
vectors'. That ceiling is a log-odds: no guess on a canary is right more often than
``e^c / (1 + e^c)``, however well the model memorises it. The audit's ``r`` guesses then prove,
when right that often (the count it expects), only :func:`expected_bound` (the one-run bound's
own lower end, which needs room below the truth). Where that is at most the claim for the 2x
control, no canary design with this many guesses can expect to catch it, so the audit cannot test
the claim: it says so with the computed ceilings instead of training three models to report a
row of zeros or "no verdict".

Where the model trains on exactly K-ary randomized response (Laplace's argmax labels, at an
exactly computed ε′ below the vector's ε), the audit tests that tighter claim
(:func:`audited_claim`): a model above ε′ breaks what its training labels promise, and the run at
twice the budget spends about 2ε′. Its attack then guesses on the canaries whose label under that
doubled budget is one of their two candidates (:func:`informative_share`): the others' labels
carry nothing to tell the candidates apart, and guessing on them only dilutes the bound.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from labeldp_core.engine.config import RunConfig
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.audit_claims import RandomizedResponseCeiling
from labeldp_core.families.family import AuditCeiling
from labeldp_core.model_audit.estimate import score_guesses
from labeldp_core.model_audit.guesses import DEFAULT_GUESS_SHARE, MIN_GUESS_SHARE
from labeldp_core.registry import mechanism_entries

__all__ = [
    "AuditedClaim",
    "UntestableClaimError",
    "audited_claim",
    "check_testable",
    "expected_bound",
    "informative_share",
]


class UntestableClaimError(InvalidInputError):
    """No canary design can catch this audit's 2x control; ``report`` says why (JSON-ready)."""

    def __init__(self, report: dict) -> None:
        super().__init__(report["verdict"])
        self.report = report


def expected_bound(ceiling: float, guesses: int) -> float:
    """The ε̂ of ``guesses`` guesses right as often as a ceiling log-odds ``ceiling`` allows.

    The one-run bound (:func:`~.estimate.score_guesses`, δ = 0, which no δ > 0 exceeds) of
    ``round(r e^c / (1 + e^c))`` right out of r: what a perfect attack can expect to prove.

    >>> round(expected_bound(1.137, 500), 2)
    0.97
    """
    accuracy = 1.0 / (1.0 + math.exp(-ceiling))
    return score_guesses(round(accuracy * guesses), guesses).epsilon_lower_bound


@dataclass(frozen=True)
class AuditedClaim:
    """The ε for a label the audit tests the model against, and why, when not the run's own.

    Attributes:
        epsilon: the claim tested: the run's for a label, or a tighter guarantee of its model.
        reason: None for the run's own claim; else what makes the model's guarantee tighter.
        guess_share: the attack's share of canaries for a tighter claim (:func:`informative_share`
            of its 2x control), None for the audit's default.
    """

    epsilon: float
    reason: str | None = None
    guess_share: float | None = None


def _declared(mechanism: str) -> AuditCeiling | None:
    return next(m.model_audit_ceiling for m in mechanism_entries() if m.id == mechanism)


def informative_share(epsilon: float, num_classes: int) -> float:
    """The share of canaries whose K-ary randomized response at ε is one of their two candidates.

    The label is kept with probability p = e^ε / (e^ε + K - 1) and becomes the decoy with
    (1 - p) / (K - 1): (e^ε + 1) / (e^ε + K - 1) in all, held to [MIN_GUESS_SHARE,
    DEFAULT_GUESS_SHARE].

    >>> round(informative_share(1.1374, 10), 3)
    0.34
    """
    odds = math.exp(epsilon)
    share = (odds + 1.0) / (odds + num_classes - 1.0)
    return min(DEFAULT_GUESS_SHARE, max(MIN_GUESS_SHARE, share))


def audited_claim(
    configs: Mapping[str, RunConfig], n_train: int, label_epsilon: float, num_classes: int
) -> AuditedClaim:
    """The claim to test the model against: ``label_epsilon``, or a tighter guarantee.

    ``configs`` are as :func:`check_testable`'s. Where the model trains on exactly randomized
    response (a :class:`~labeldp_core.families.audit_claims.RandomizedResponseCeiling`) at an ε
    below ``label_epsilon``, that ε is the claim: testing the model against it is the stronger
    test, and the only one in which its 2x control can show; the attack then guesses on the
    canaries that the control's labels can inform.
    """
    first, control = next(iter(configs.values())), list(configs.values())[-1]
    declared = _declared(first.mechanism)
    if not isinstance(declared, RandomizedResponseCeiling):
        return AuditedClaim(label_epsilon)
    tight = declared.most_provable(first, n_train)
    if tight is None or tight >= label_epsilon:
        return AuditedClaim(label_epsilon)
    doubled = declared.most_provable(control, n_train)
    share = None if doubled is None else informative_share(doubled, num_classes)
    reason = f"{declared.reason}: its model is {tight:.3g}-label-DP"
    return AuditedClaim(tight, reason, share)


def check_testable(
    configs: Mapping[str, RunConfig],
    n_train: int,
    unit: str,
    label_epsilon: float,
    guesses: Callable[[], int],
) -> None:
    """Refuse, with the reason, an audit whose 2x control no canary design could catch.

    ``configs`` are the audit's trainings under the mechanism by role, the mechanism at the claim
    first and the control at twice it last; ``n_train`` the training rows, ``label_epsilon`` the
    claim tested for a label (:func:`audited_claim`), ``guesses`` how many canaries the attack
    will guess on (asked only where a ceiling is declared: counting the canaries reads the
    dataset).
    """
    roles = list(configs.items())
    (audited, first), (control, last) = roles[0], roles[-1]
    declared = _declared(first.mechanism)
    if declared is None:
        return
    ceilings = {role: declared.most_provable(config, n_train) for role, config in configs.items()}
    doubled = ceilings[control]
    if doubled is None:
        return
    made = guesses()
    expected = expected_bound(doubled, made)
    if expected > label_epsilon:
        return
    verdict = (
        f"this audit cannot test this claim: {declared.reason}, so no canary design can expect "
        f"to prove more than {ceilings[audited]:.3g} of the model at {first.epsilon:g}, nor "
        f"{doubled:.3g} of its control at {last.epsilon:g}, and {made} guesses right as "
        f"often as that allows prove about {expected:.3g}, not above the {label_epsilon:.3g} "
        "claim it tests (computed from the noise; nothing was trained)"
    )
    raise UntestableClaimError(
        {
            "mechanism": first.mechanism,
            "dataset": first.dataset,
            "seed": first.seed,
            "claimed_epsilon": first.epsilon,
            "privacy_unit": unit,
            "label_epsilon": label_epsilon,
            "most_provable": ceilings,
            "guesses": made,
            "expected_provable": expected,
            "trained": False,
            "violates": False,
            "verdict": verdict,
        }
    )
