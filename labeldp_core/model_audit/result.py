"""What a canary audit of a trained model reports: ε̂ with its interval, the controls, a verdict."""

from dataclasses import asdict, dataclass
from typing import Any

from labeldp_core.base.numbers import epsilon_text, proven_text

__all__ = ["CanaryEstimate", "ModelAudit"]


@dataclass(frozen=True)
class CanaryEstimate:
    """One training's guesses: how often the canaries were called right and the ε it proves.

    ``run_epsilon`` is the budget the mechanism ran at (None: trained without privacy);
    ``caught`` whether the bound exceeds the label-level claim.
    """

    role: str
    run_epsilon: float | None
    correct: int
    trials: int
    accuracy: float
    accuracy_low: float
    epsilon_lower_bound: float
    confidence: float
    test_score: float
    caught: bool


@dataclass(frozen=True)
class ModelAudit:
    """The canary audit of one mechanism at one ε: the model's ε̂ beside the claim, and controls.

    ``label_epsilon`` / ``label_delta`` are the claim for one changed label (an example-level
    claim translated, or a tighter guarantee of the model, ``claim_reason`` saying which:
    :func:`~.ceiling.audited_claim`); ``accuracy_cap`` the best guessing accuracy that claim
    allows. ``model`` is the trained model's kind and ``learning_rate`` its Adam rate (None for
    a mechanism with no such setting, and in a report stored before the rate was recorded).
    """

    mechanism: str
    dataset: str
    seed: int
    epochs: int
    model: str | None
    canaries: int
    canary_kind: str
    guess_share: float
    claimed_epsilon: float
    privacy_unit: str
    label_epsilon: float
    label_delta: float
    accuracy_cap: float
    audited: CanaryEstimate
    controls: tuple[CanaryEstimate, ...]
    learning_rate: float | None = None
    claim_reason: str | None = None

    @property
    def violates(self) -> bool:
        """Whether the model's canaries prove more ε for a label than claimed."""
        return self.audited.caught

    @property
    def controls_caught(self) -> bool:
        """Whether every control (which spends more than the claim) was caught."""
        return all(control.caught for control in self.controls)

    @property
    def verdict(self) -> str:
        """One plain sentence: a violation, no verdict (a control missed), or consistent."""
        proved = proven_text(self.audited.epsilon_lower_bound)
        claim = epsilon_text(self.label_epsilon)
        if self.violates:
            confidence = self.audited.confidence
            return (
                f"VIOLATES its claim: the model's canaries prove epsilon >= {proved} for a "
                f"label, above the {claim} claimed (a {confidence:.0%} lower bound: a model "
                f"exactly at its claim goes above it in about 1 audit in "
                f"{round(1 / (1 - confidence))}, so audit another seed before calling it a bug)"
            )
        missed = [c.role for c in self.controls if not c.caught]
        if self.controls[0].role == "non-private" and not self.controls[0].caught:
            return (
                "this audit cannot test this claim: its canaries prove only "
                f"{proven_text(self.controls[0].epsilon_lower_bound)} without any privacy, not "
                f"above the {claim} claimed; the audit proves at least {proved}"
            )
        if missed:
            were = "was" if len(missed) == 1 else "were"
            return (
                f"no verdict: the {' and '.join(missed)} control {were} not caught, so these "
                f"canaries cannot test a claim of {claim}; the audit proves at least "
                f"{proved}"
            )
        return (
            f"consistent with its claim: the model's canaries prove at least {proved} "
            f"(claim {claim} for a label), and every control was caught"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, with the verdict and the flags."""
        data = asdict(self)
        data["controls"] = [asdict(control) for control in self.controls]
        return data | {
            "violates": self.violates,
            "controls_caught": self.controls_caught,
            "power": self.power,
            "verdict": self.verdict,
        }

    @property
    def power(self) -> dict[str, float]:
        """What the same audit proves of each control (the most it could show), by role."""
        return {control.role: control.epsilon_lower_bound for control in self.controls}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelAudit":
        """Rebuild from :meth:`to_dict` (the derived keys are ignored)."""
        derived = ("violates", "controls_caught", "power", "verdict")
        own = {k: v for k, v in data.items() if k not in derived}
        own["audited"] = CanaryEstimate(**own["audited"])
        own["controls"] = tuple(CanaryEstimate(**control) for control in own["controls"])
        return cls(**own)
