"""A canary audit in plain lines, for the command line and reports."""

from labeldp_core.model_audit.recipe import describe_recipe
from labeldp_core.model_audit.result import CanaryEstimate, ModelAudit

__all__ = ["audit_lines"]


def _row(estimate: CanaryEstimate) -> str:
    budget = "no privacy" if estimate.run_epsilon is None else f"run at {estimate.run_epsilon:g}"
    name = estimate.role if estimate.role == "mechanism" else f"{estimate.role} control"
    caught = "above the claim" if estimate.caught else "not above the claim"
    return (
        f"  {name} ({budget}): {estimate.correct}/{estimate.trials} guesses right "
        f"({estimate.accuracy:.1%}, at least {estimate.accuracy_low:.1%} at "
        f"{estimate.confidence:.0%} confidence): epsilon >= {estimate.epsilon_lower_bound:.3g}, "
        f"{caught}; test accuracy {estimate.test_score:.3f}"
    )


def audit_lines(audit: ModelAudit) -> list[str]:
    """The claim, one line per training (the mechanism, then the controls) and the verdict."""
    claim = f"epsilon {audit.claimed_epsilon:g}"
    if audit.privacy_unit == "example":
        claim += (
            f" per example, read for a label as ({audit.label_epsilon:.3g}, "
            f"{audit.label_delta:.3g})"
        )
    if audit.claim_reason is not None:
        claim += f", tested as {audit.label_epsilon:.3g} for the model ({audit.claim_reason})"
    return [
        f"{audit.mechanism} on {audit.dataset}, trained model, {claim}: {audit.canaries} "
        f"{audit.canary_kind} canaries, guesses on the {audit.guess_share:.0%} most confident, "
        f"{describe_recipe(audit)}, seed {audit.seed} (a "
        f"label-DP model allows at most "
        f"{audit.accuracy_cap:.1%} right)",
        _row(audit.audited),
        *(_row(control) for control in audit.controls),
        f"  verdict: {audit.verdict}",
    ]
