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

from labeldp_core.accounting.privacy_scale import SCALE, band_of
from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.base.validation import check_epsilon
from labeldp_core.errors import InvalidInputError

__all__ = [
    "FORMULAS",
    "Prior",
    "Risk",
    "guess_bound",
    "inference_gain_bound",
    "odds_multiplier",
    "percent",
    "posterior_bound",
    "risk_of",
    "scale_sentence",
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

    def line(self, approximate: bool = False) -> str:
        """The risk in one sentence for a non-specialist: each guess with the prior it starts from.

        The bound from the image's prior (when known) comes first, then the uniform prior's,
        named; the odds multiplier last. No figure that is not a probability of guessing the
        label stands beside them. ``approximate``: the ε is an estimate (written ≈).
        """
        near = "≈ " if approximate else ""
        where = f"At ε {near or '= '}{self.epsilon:.3g}"
        if self.unit == "example":
            where = (
                f"At example-level ε {near or '= '}{self.given_epsilon:.3g}, which is ε "
                f"{near or '= '}{self.epsilon:.3g} for one label"
            )
        upto = (
            f" Each bound may fail with probability up to δ = {self.delta:.2g}."
            if self.delta
            else ""
        )
        return (
            f"{where} ({self.strength_word()} privacy for one label on the explorer's scale): "
            f"{self._priors()} {'Either way, t' if self.informed is not None else 'T'}he "
            f"release multiplies the odds of any guess about one label by at most "
            f"{self.odds_text}.{upto}"
        )

    def brief(self) -> str:
        """:meth:`line` in a few words, for beside an ε control: the odds, then the blind guess.

        The odds bound holds for any attacker, one who sees the image included; the guess names
        its start, a blind 1/K. Nothing else (no attack gain, which was read as a chance of
        guessing the label: issue 53).

        >>> risk_of(1.0, 10).brief()
        'odds moved ≤ 2.7x · image unseen, a guess rises from 10% to ≤ 23%'
        """
        return (
            f"odds moved ≤ {self.odds_text} · image unseen, a guess rises from "
            f"{self.blind:.0%} to ≤ {self.guess:.0%}"
        )

    def _priors(self) -> str:
        """The guess from the image's prior (if known), then from the uniform prior, named."""
        uniform = (
            f"one who never sees the image starts from π = 1/K = {self.blind:.1%} and reaches "
            f"at most {percent(self.guess)}"
        )
        if self.prior is None or self.informed is None:
            return (
                f"an attacker {uniform[4:]}; the image is public, so a real attacker starts from "
                "what the image says (usually far above 1/K) and ends higher."
            )
        return (
            f"an attacker who sees the image guesses one training label right with "
            f"probability π = {percent(self.prior.probability)} before the release "
            f"({self.prior.source}) and at most {percent(self.informed)} after it; {uniform}."
        )

    def strength_word(self) -> str:
        """The scale's word for this ε for one label (the scale: :mod:`.privacy_scale`)."""
        return band_of(self.epsilon).word


def percent(probability: float) -> str:
    """A probability as a percentage, one decimal, or more where one would round it up to 100%.

    A bound of 99.996% is not "100.0%" (nor 99.9%, which would understate it); one within
    1e-7 of 1 is "100%" (as a bound it then limits nothing).

    >>> percent(0.4432), percent(0.99996), percent(1.0), percent(1 - 1e-12)
    ('44.3%', '99.996%', '100.0%', '100%')
    """
    for digits in range(1, 6):
        text = f"{probability:.{digits}%}"
        if probability == 1 or not text.startswith("100"):
            return text
    return "100%"


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


def scale_sentence(num_classes: int) -> str:
    """The scale of :mod:`.privacy_scale` in one sentence, with what each word means.

    Each band with its largest ε, the odds multiplier there and how far a 1-in-K guess rises.

    >>> print(scale_sentence(10))  # doctest: +NORMALIZE_WHITESPACE
    The scale's words, for one training label: strong privacy up to ε = 1 (odds moved at most
    2.7x; a 1-in-10 guess rises to at most 23.2%), moderate up to ε = 2 (7.4x; 45.1%), weak up
    to ε = 5 (148x; 94.3%), very weak above ε = 5.
    """
    parts = []
    for index, band in enumerate(SCALE[:-1]):
        risk = risk_of(band.upto, num_classes)
        odds, guess = risk.odds_text, f"{risk.guess:.1%}"
        if index == 0:
            odds = f"odds moved at most {odds}"
            guess = f"a 1-in-{num_classes} guess rises to at most {guess}"
        word = f"{band.word} privacy" if index == 0 else band.word
        parts.append(f"{word} up to ε = {band.upto:g} ({odds}; {guess})")
    return (
        "The scale's words, for one training label: "
        + ", ".join(parts)
        + f", {SCALE[-1].word} above ε = {SCALE[-2].upto:g}."
    )
