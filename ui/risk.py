"""The risk of the page's ε for one training label, in one line beside the ε control.

Issue 38, section 2: a reader who moves ε sees at once what it means for one label (how far
the odds can move, how far a guess can rise), each number's formula in the help. Issue 49: the
guess's figure names its prior, the uniform one; the help opens with Choose ε's risk sentence
(:meth:`~labeldp_core.accounting.risk.Risk.line`), which adds the attacker who starts from the
public image. Issue 53: no attack gain beside the guess (a reader took it for the chance of
guessing). An example-level ε is first read for one label (twice the ε); on the page of local
DP on model outputs only the odds multiplier applies (it protects an output, not a label).
"""

from dataclasses import dataclass

from labeldp_core.accounting.risk import FORMULAS, odds_multiplier, risk_of
from labeldp_core.base.numbers import epsilon_text

__all__ = ["RiskOf", "risk_help", "risk_line"]


@dataclass(frozen=True)
class RiskOf:
    """What a page's ε protects, for its risk line: the number of classes and the unit."""

    num_classes: int
    unit: str = "label"


def risk_line(epsilon: float, what: RiskOf) -> str:
    """The risk of ``epsilon`` in one short line.

    >>> print(risk_line(1.0, RiskOf(10)))
    One label at ε = 1: odds moved ≤ 2.7x · image unseen, a guess rises from 10% to ≤ 23%
    """
    if what.unit == "output":
        odds = odds_multiplier(epsilon)
        return f"One model output at ε = {epsilon:g}: the odds of its release move ≤ {odds:.2g}x"
    risk = risk_of(epsilon, what.num_classes, what.unit)
    where = "" if what.unit == "label" else f" (2 × example ε {epsilon:g})"
    return f"One label at ε = {epsilon_text(risk.epsilon)}{where}: {risk.brief()}"


def risk_help(epsilon: float, what: RiskOf) -> str:
    """The risk of ``epsilon`` in Choose ε's sentence, then each number's formula, for the help."""
    if what.unit == "output":
        return "Odds: " + FORMULAS["odds"] + "."
    lines = [
        risk_of(epsilon, what.num_classes, what.unit).line(),
        f"Odds: {FORMULAS['odds']}.",
        f"Best guess: {FORMULAS['guess']}. The line's figure starts from the uniform prior "
        f"π = 1/{what.num_classes}, an attacker who never sees the image; one who sees it starts "
        "from the image's π and ends at most at πe^ε/(πe^ε + 1 − π).",
        "With a δ (PATE, DP-SGD, DPPL-Mean) each bound holds up to δ.",
    ]
    if what.unit == "example":
        lines.insert(1, f"Example-level ε read for one label: {FORMULAS['example']}.")
    return "\n\n".join(lines)
