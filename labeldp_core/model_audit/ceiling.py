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
"""

import math
from collections.abc import Callable, Mapping

from labeldp_core.engine.config import RunConfig
from labeldp_core.errors import InvalidInputError
from labeldp_core.model_audit.estimate import score_guesses
from labeldp_core.registry import mechanism_entries

__all__ = ["UntestableClaimError", "check_testable", "expected_bound"]


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
    claim for a label, ``guesses`` how many canaries the attack will guess on (asked only where a
    ceiling is declared: counting the canaries reads the dataset).
    """
    roles = list(configs.items())
    (audited, first), (control, last) = roles[0], roles[-1]
    declared = next(m.model_audit_ceiling for m in mechanism_entries() if m.id == first.mechanism)
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
        "claimed (computed from the noise; nothing was trained)"
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
