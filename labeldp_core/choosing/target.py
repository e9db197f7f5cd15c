"""What a user asks for: a score to reach, the privacy unit to protect, and how surely.

A target is an accuracy of at least A, an MSE of at most M, or an accuracy within P points of
the clean model's. With ``confident`` the worst seed (the lower band), not the mean, must reach
it. Bad input gets one sentence saying what to give instead.
"""

import math
from dataclasses import dataclass
from typing import Literal

from labeldp_core.errors import InvalidInputError

__all__ = ["KINDS", "UNITS", "Target", "make_target"]

#: The kinds of target: accuracy at least, MSE at most, accuracy within P points of clean.
KINDS = ("accuracy", "mse", "within")
#: The privacy units a user can need: one label changed, or one whole example added/removed.
UNITS = ("label", "example")

Kind = Literal["accuracy", "mse", "within"]


@dataclass(frozen=True)
class Target:
    """A checked target (build it with :func:`make_target`)."""

    kind: Kind
    value: float
    unit: str = "label"
    confident: bool = False
    #: For "within": the clean model's score all curves are measured from (None: each curve's).
    clean: float | None = None

    @property
    def metric(self) -> str:
        """The score the target is on: "test accuracy" or "test MSE"."""
        return "test MSE" if self.kind == "mse" else "test accuracy"

    def goodness(self, score: float) -> float:
        """A score made "higher is better" (an MSE negated)."""
        return -score if self.kind == "mse" else score

    def threshold(self, baseline: float) -> float:
        """The score to reach on a curve whose clean model scores ``baseline``."""
        if self.kind == "within":
            return (baseline if self.clean is None else self.clean) - self.value / 100
        return self.value

    def describe(self) -> str:
        """The target in words, e.g. 'test accuracy ≥ 0.9, mean over seeds, label-level privacy'."""
        band = "every seed" if self.confident else "mean over seeds"
        if self.kind == "within":
            text = f"test accuracy within {self.value:g} points of the clean model"
            text += "" if self.clean is None else f"'s {self.clean:.3f}"
        elif self.kind == "mse":
            text = f"test MSE ≤ {self.value:g}"
        else:
            text = f"test accuracy ≥ {self.value:g}"
        return f"{text}, {band}, {self.unit}-level privacy"


def make_target(kind: str, value: object, unit: str = "label", confident: bool = False) -> Target:
    """A target checked for sense, or an InvalidInputError in one sentence.

    >>> make_target("accuracy", 0.9).describe()
    'test accuracy ≥ 0.9, mean over seeds, label-level privacy'
    """
    if kind not in KINDS:
        raise InvalidInputError(f"unknown target {kind!r}; choose one of: {', '.join(KINDS)}")
    if unit not in UNITS:
        raise InvalidInputError(
            f"unknown privacy unit {unit!r}: choose label (one training label changed) or "
            "example (one whole example added or removed)"
        )
    number = _number(value)
    if kind == "accuracy" and not 0 < number <= 1:
        raise InvalidInputError(
            f"a target accuracy is a share in (0, 1], e.g. 0.9, got {number:g}"
            + (": every model reaches 0" if number == 0 else "")
        )
    if kind == "mse" and number <= 0:
        raise InvalidInputError(f"a target MSE is above 0, e.g. 2.5, got {number:g}")
    if kind == "within" and not 0 < number < 100:
        raise InvalidInputError(
            f"'within P points of the clean model' takes P in (0, 100), e.g. 5, got {number:g}"
        )
    return Target(kind, number, unit, bool(confident))  # type: ignore[arg-type]


def _number(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidInputError(f"a target is a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InvalidInputError(f"a target is a finite number, got {value!r}")
    return number
