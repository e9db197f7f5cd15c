"""The risk of an ε in numbers a non-specialist reads, for one training label.

Three bounds, each a closed form of ε alone (and of the number of classes K):

* the posterior-odds multiplier e^ε: changing one label changes the probability of any output,
  and so the odds an observer puts on any hypothesis about that label, by at most e^ε;
* the best attacker's chance of guessing one training label from the release, with a uniform
  prior, e^ε / (e^ε + K − 1), against the 1/K of guessing blind (randomized response attains
  it: its keep probability);
* the bound on a label-inference attack's gain over the best guess from the features alone,
  1 − e^−ε (Wu et al., "Does label differential privacy prevent label inference attacks?",
  AISTATS 2023).

An example-level (ε, δ) is first read for one changed label as (2ε, (1 + e^ε)δ) (group privacy,
see :mod:`labeldp_core.accounting.units`); with δ > 0 each bound holds up to δ.
"""

import math
from dataclasses import dataclass

from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.errors import InvalidInputError
from labeldp_core.validation import check_epsilon

__all__ = [
    "FORMULAS",
    "LARGE_EPSILON",
    "SMALL_EPSILON",
    "Risk",
    "guess_bound",
    "inference_gain_bound",
    "odds_multiplier",
    "risk_of",
]

#: Each number's formula and source, for a tooltip.
FORMULAS = {
    "odds": "e^ε: the definition of ε-DP, read as the most one label can move the odds of any "
    "hypothesis about it (a Bayes factor)",
    "guess": "e^ε/(e^ε + K − 1) with a uniform prior over the K classes, attained by K-ary "
    "randomized response (its keep probability); blind: 1/K",
    "gain": "1 − e^−ε: a label-inference attack's gain over the best guess from the features "
    "alone (Wu et al., AISTATS 2023)",
    "example": "an add/remove (ε, δ) gives (2ε, (1 + e^ε)δ) for one changed label (group "
    "privacy for two steps)",
}
#: Up to this ε the page calls the protection strong; from LARGE_EPSILON on, weak for one label.
SMALL_EPSILON = 1.0
LARGE_EPSILON = 5.0


def odds_multiplier(epsilon: float) -> float:
    """How much one changed label can move the odds of any output: e^ε.

    >>> round(odds_multiplier(1.0), 4)
    2.7183
    """
    return math.exp(check_epsilon(epsilon))


def guess_bound(epsilon: float, num_classes: int) -> float:
    """The best chance of guessing one training label from the release: e^ε/(e^ε + K − 1).

    >>> guess_bound(math.log(3), 3)
    0.6
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 2:
        raise InvalidInputError(f"K is a whole number of classes, at least 2, got {num_classes!r}")
    return round(1.0 / (1.0 + (num_classes - 1) * math.exp(-epsilon)), 15)


def inference_gain_bound(epsilon: float) -> float:
    """The most a label-inference attack gains over the features alone: 1 − e^−ε.

    >>> round(inference_gain_bound(math.log(2)), 12)
    0.5
    """
    return -math.expm1(-check_epsilon(epsilon))


@dataclass(frozen=True)
class Risk:
    """The risk numbers of one guarantee, read for one training label."""

    given_epsilon: float
    unit: str
    epsilon: float
    delta: float
    num_classes: int
    odds: float
    guess: float
    blind: float
    gain: float

    @property
    def odds_text(self) -> str:
        """The odds multiplier as people read it: '2.7x', '22,026x'."""
        return _times(self.odds)

    def line(self) -> str:
        """The numbers in one line, e.g. for beside an ε control."""
        unit = (
            ""
            if self.unit == "label"
            else (
                f" (example-level ε = {self.given_epsilon:g} is ε = {self.epsilon:.3g} for a label)"
            )
        )
        upto = f", each up to δ = {self.delta:.2g}" if self.delta else ""
        return (
            f"At ε = {self.epsilon:.3g}{unit}: changing one label moves the odds of any output "
            f"by at most {self.odds_text}; the best guess of one training label is right "
            f"with probability at most {self.guess:.1%} (blind: {self.blind:.1%}); a "
            f"label-inference attack gains at most {self.gain:.1%} over the features alone{upto}."
        )

    def strength(self) -> str:
        """A sentence on what this ε means for one label: strong, moderate or weak."""
        if self.epsilon <= SMALL_EPSILON:
            return "Small ε is strong protection: the release says little about any one label."
        if self.epsilon < LARGE_EPSILON:
            return (
                "A moderate ε: one label shifts what the release shows, by the factor above, "
                "and no more."
            )
        return (
            f"A large ε: one label can move the odds by up to {self.odds_text}, so the "
            "guarantee alone says little about a single label; what protects it is the noise "
            "the mechanism actually adds and what an attacker does not know."
        )


def _times(factor: float) -> str:
    """A multiplier as people read it: '2.7x', '22,026x'."""
    return f"{factor:.2g}x" if factor < 10 else f"{factor:,.0f}x"


def risk_of(epsilon: float, num_classes: int, unit: str = "label", delta: float = 0.0) -> Risk:
    """The risk numbers of an (ε, δ) guarantee of privacy ``unit`` for one of K classes' labels.

    An example-level guarantee is first translated to one changed label (2ε, (1 + e^ε)δ).
    """
    if unit not in ("label", "example"):
        raise InvalidInputError(f"privacy unit is label or example, got {unit!r}")
    given = check_epsilon(epsilon)
    if not 0 <= delta < 1:
        raise InvalidInputError(f"delta must lie in [0, 1), got {delta!r}")
    label_eps, label_delta = (
        label_guarantee_of_example(given, delta) if unit == "example" else (given, delta)
    )
    return Risk(
        given_epsilon=given,
        unit=unit,
        epsilon=label_eps,
        delta=label_delta,
        num_classes=num_classes,
        odds=odds_multiplier(label_eps),
        guess=guess_bound(label_eps, num_classes),
        blind=1 / num_classes,
        gain=inference_gain_bound(label_eps),
    )
