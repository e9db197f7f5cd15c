"""The risk of an ε in numbers a non-specialist reads, for one training label.

Three bounds, each a closed form of ε alone (and of the number of classes K):

* the posterior-odds multiplier e^ε: changing one label changes the probability of any output,
  and so the odds an observer puts on any hypothesis about that label, by at most e^ε;
* the most an attacker can believe the true label after the release, πe^ε / (πe^ε + 1 − π),
  if it believed it with probability π before (the odds π/(1 − π) times at most e^ε). Under
  label DP the images are public, so a real attacker's π is what a model of the image says
  (:class:`Prior`), far above 1/K on most data; with the uniform prior π = 1/K the bound is
  e^ε / (e^ε + K − 1) (randomized response attains it: its keep probability). A figure for the
  uniform prior always names that prior beside it;
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
    "Prior",
    "Risk",
    "guess_bound",
    "inference_gain_bound",
    "odds_multiplier",
    "posterior_bound",
    "risk_of",
]

#: Each number's formula and source, for a tooltip.
FORMULAS = {
    "odds": "e^ε: the definition of ε-DP, read as the most one label can move the odds of any "
    "hypothesis about it (a Bayes factor)",
    "guess": "πe^ε/(πe^ε + 1 − π) for an attacker who believed the true label with probability "
    "π before the release; with the uniform prior π = 1/K (an attacker who never sees the "
    "image) e^ε/(e^ε + K − 1), attained by K-ary randomized response (its keep probability)",
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


def posterior_bound(epsilon: float, prior: float) -> float:
    """The most an attacker believes the true label after the release: πe^ε/(πe^ε + 1 − π).

    ``prior`` is π, the probability the attacker put on the true label before the release;
    ε-label-DP multiplies its odds π/(1 − π) by at most e^ε.

    >>> round(posterior_bound(math.log(3), 0.5), 12)
    0.75
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(prior, bool) or not isinstance(prior, int | float) or not 0 <= prior <= 1:
        raise InvalidInputError(f"the prior π is a probability in [0, 1], got {prior!r}")
    return round(prior / (prior + (1.0 - prior) * math.exp(-epsilon)), 15)


def guess_bound(epsilon: float, num_classes: int) -> float:
    """The bound for the uniform prior π = 1/K: e^ε/(e^ε + K − 1).

    >>> guess_bound(math.log(3), 3)
    0.6
    """
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 2:
        raise InvalidInputError(f"K is a whole number of classes, at least 2, got {num_classes!r}")
    return posterior_bound(epsilon, 1 / num_classes)


def inference_gain_bound(epsilon: float) -> float:
    """The most a label-inference attack gains over the features alone: 1 − e^−ε.

    >>> round(inference_gain_bound(math.log(2)), 12)
    0.5
    """
    return -math.expm1(-check_epsilon(epsilon))


@dataclass(frozen=True)
class Prior:
    """What an attacker believes about a training label before the release, and whence.

    Attributes:
        probability: π, the probability it puts on the true label.
        source: where π comes from, in words (e.g. a public model's confidence on the image).
    """

    probability: float
    source: str


@dataclass(frozen=True)
class Risk:
    """The risk numbers of one guarantee, read for one training label.

    ``guess`` is the bound for the uniform prior 1/K (``blind``); ``informed`` the bound for
    ``prior``, the attacker label DP assumes (it sees the public image), when one is known.
    """

    given_epsilon: float
    unit: str
    epsilon: float
    delta: float
    num_classes: int
    odds: float
    guess: float
    blind: float
    gain: float
    prior: Prior | None = None
    informed: float | None = None

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
            f"At ε = {self.epsilon:.3g}{unit}: an attacker who believed one training label's "
            "true value with probability π before the release believes it at most "
            f"πe^ε/(πe^ε + 1 − π) after. {self._priors()} Changing one label moves the odds "
            f"of any output by at most {self.odds_text}; a label-inference attack gains at "
            f"most {self.gain:.1%} over the features alone{upto}."
        )

    def _priors(self) -> str:
        """The bound from the image's prior (if known), then from the uniform prior, named."""
        uniform = (
            f"from the uniform prior π = 1/K = {self.blind:.1%} (an attacker who never sees "
            f"the image) at most {self.guess:.1%}"
        )
        if self.prior is None or self.informed is None:
            return (
                f"{uniform[0].upper()}{uniform[1:]}; the image is public, so a real attacker "
                "starts from what the image says (usually far above 1/K) and ends higher."
            )
        return (
            f"From π = {self.prior.probability:.1%} ({self.prior.source}) at most "
            f"{self.informed:.1%}; {uniform}."
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


def risk_of(
    epsilon: float,
    num_classes: int,
    unit: str = "label",
    delta: float = 0.0,
    prior: Prior | None = None,
) -> Risk:
    """The risk numbers of an (ε, δ) guarantee of privacy ``unit`` for one of K classes' labels.

    An example-level guarantee is first translated to one changed label (2ε, (1 + e^ε)δ).
    ``prior`` is what the attacker believes before the release, from the public image; without
    one only the uniform prior's bound is known.
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
        prior=prior,
        informed=None if prior is None else posterior_bound(label_eps, prior.probability),
    )
