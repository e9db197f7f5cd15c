"""Claims no canary design can test, said with the reason before anything trains.

A family may declare the most any canary audit can prove of its model
(:class:`~labeldp_core.families.family.AuditCeiling`): PATE's student sees a training label only
through one teacher's vote per query, under noise calibrated for the claim over every query, so
even its run at twice the budget shows a canary far less than the claim. Where that ceiling of
the 2x control is at most the claim, the 2x control cannot be caught by any canary, so the audit
cannot test the claim: it says so with the computed ceilings instead of training three models to
report a row of zeros.
"""

from collections.abc import Mapping

from labeldp_core.engine.config import RunConfig
from labeldp_core.errors import InvalidInputError
from labeldp_core.registry import mechanism_entries

__all__ = ["UntestableClaimError", "check_testable"]


class UntestableClaimError(InvalidInputError):
    """No canary design can catch this audit's 2x control; ``report`` says why (JSON-ready)."""

    def __init__(self, report: dict) -> None:
        super().__init__(report["verdict"])
        self.report = report


def check_testable(
    configs: Mapping[str, RunConfig], n_train: int, unit: str, label_epsilon: float
) -> None:
    """Refuse, with the reason, an audit whose 2x control no canary design could catch.

    ``configs`` are the audit's trainings under the mechanism by role, the mechanism at the claim
    first and the control at twice it last; ``n_train`` the training rows, ``label_epsilon`` the
    claim for a label.
    """
    roles = list(configs.items())
    (audited, first), (control, last) = roles[0], roles[-1]
    declared = next(m.model_audit_ceiling for m in mechanism_entries() if m.id == first.mechanism)
    if declared is None:
        return
    ceilings = {role: declared.most_provable(config, n_train) for role, config in configs.items()}
    doubled = ceilings[control]
    if doubled is None or doubled > label_epsilon:
        return
    verdict = (
        f"this audit cannot test this claim: {declared.reason}, so no canary design can expect "
        f"to prove more than {ceilings[audited]:.3g} of the model at {first.epsilon:g}, nor "
        f"{doubled:.3g} of its control at {last.epsilon:g}, not above the "
        f"{label_epsilon:.3g} claimed (computed from the noise; nothing was trained)"
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
            "trained": False,
            "violates": False,
            "verdict": verdict,
        }
    )
