"""The smallest ε per mechanism that reaches a target, with its spread and what it rests on.

Each answer is read off computed points only (see :mod:`labeldp_core.choosing.crossing`): the
ε of the first crossing of the mean (or, if asked, the worst seed), the interval between the
crossings of the best and the worst seed, and the score, the ε spent and the privacy unit there.
An ε between two computed ones is interpolated, and said to be.
"""

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from labeldp_core.accounting.units import label_guarantee_of_example
from labeldp_core.base.numbers import score_text
from labeldp_core.choosing.crossing import Crossing, first_crossing, value_at
from labeldp_core.choosing.curves import Curve
from labeldp_core.choosing.summary import NEIGHBOURS
from labeldp_core.choosing.target import Target

__all__ = ["Answer", "answer", "best_score", "choose", "protection_gap"]


@dataclass(frozen=True)
class Answer:
    """One mechanism's answer to a target; ``epsilon`` is None when it is not reached."""

    mechanism: str
    privacy_unit: str
    neighbours: str
    metric: str
    threshold: float
    epsilon: float | None
    epsilon_low: float | None
    epsilon_high: float | None
    score: float
    score_low: float
    score_high: float
    epsilon_spent: float
    delta: float
    unit_epsilon: float
    unit_delta: float
    below: float | None
    above: float | None
    interpolated: bool
    points: int
    seeds: int
    smallest_epsilon: float
    largest_epsilon: float
    #: Whether the best and the worst seed's ε are read between two computed ε.
    low_interpolated: bool = False
    high_interpolated: bool = False

    @property
    def reached(self) -> bool:
        """Whether some computed ε reaches the target."""
        return self.epsilon is not None

    def to_dict(self) -> dict[str, Any]:
        """The answer as JSON-ready fields, with its sentence."""
        return asdict(self) | {"reached": self.reached, "sentence": self.sentence()}

    def row(self) -> dict[str, str]:
        """The answer as one table row of text; how each figure was read is in :meth:`sentence`.

        An interpolated ε is marked ≈; "seeds' spread" is where the best and the worst seed
        reach the target; "ε for your unit" is the ε spent there, in the privacy unit asked.
        """
        if self.epsilon is None:
            smallest = f"not reached up to {self.largest_epsilon:g}"
        elif self.below is None:
            smallest = f"≤ {self.epsilon:g}"
        else:
            smallest = f"{self.near}{self.epsilon:.3g}"
        return {
            "mechanism": self.mechanism,
            "privacy unit": self.neighbours,
            "smallest ε": smallest,
            "seeds' spread": self.spread(" to "),
            "ε for your unit": f"{self.near}{self.unit_epsilon:.3g}{_delta(self.unit_delta)}",
            self.metric: score_text(self.score),
        }

    @property
    def near(self) -> str:
        """'≈ ' when the answer's ε is interpolated (an estimate), else ''."""
        return "≈ " if self.interpolated else ""

    @property
    def best_seed(self) -> str:
        """The ε where the best seed reaches the target ('≈ 2.64'), or "" if none does."""
        if self.epsilon_low is None:
            return ""
        return f"{'≈ ' if self.low_interpolated else ''}{self.epsilon_low:.3g}"

    def spread(self, between: str) -> str:
        """Where the best and the worst seed reach the target, e.g. '≈ 2.64 to ≈ 3.03'.

        ``between`` joins the two ends; "" when no seed reaches it. A seed not reaching it up
        to the largest computed ε reads "over" that ε: its crossing, if any, is beyond it.
        """
        low = self.best_seed
        if not low:
            return ""
        if self.epsilon_high is None:
            return f"{low}{between}over {self.largest_epsilon:g}"
        return f"{low}{between}{'≈ ' if self.high_interpolated else ''}{self.epsilon_high:.3g}"

    def sentence(self, name: str | None = None) -> str:
        """The answer in one line, saying what is computed and what is interpolated.

        ``name``: how to name the mechanism (default: its id).
        """
        name = self.mechanism if name is None else name
        rests = f"{self.points} computed ε × {self.seeds} seeds"
        if self.epsilon is None:
            return (
                f"{name}: not reached up to ε = {self.largest_epsilon:g}, the largest "
                f"computed ({self.metric} {score_text(self.score)} there; {rests})"
            )
        spread = self._spread()
        if self.below is None:
            where = f"reached already at the smallest computed ε = {self.epsilon:g} (below it: "
            where += f"not computed); {spread}"
        elif self.interpolated:
            where = (
                f"ε ≈ {self.epsilon:.3g}, interpolated on log ε between the computed ε = "
                f"{self.below:g} and {self.above:g}; {spread}"
            )
        else:
            where = f"ε = {self.epsilon:g} (computed); {spread}"
        kind = "interpolated" if self.interpolated else "computed"
        return (
            f"{name}: {where}; {self.metric} {score_text(self.score)} there ({kind}); "
            f"ε spent {'≈ ' if self.interpolated else ''}{self.epsilon_spent:.3g}"
            f"{_delta(self.delta)}, {self.neighbours}{self._unit()}"
            f"; rests on {rests}"
        )

    def _spread(self) -> str:
        if self.epsilon_low is None:
            return "seeds' spread unknown"
        text = f"seeds' spread {self.spread(' to ')}"
        if self.epsilon_high is None:
            text += f" (not reached by every seed up to {self.largest_epsilon:g})"
        return text

    def _unit(self) -> str:
        if self.unit_epsilon == self.epsilon_spent:
            return ""
        return f", so ε = {self.unit_epsilon:.3g}{_delta(self.unit_delta)} for one changed label"


def _delta(delta: float) -> str:
    return f" (δ = {delta:.2g})" if delta else ""


def protection_gap(need: str, unit: str) -> str | None:
    """Why a mechanism of privacy ``unit`` cannot give the protection ``need``; None if it can.

    An example-level guarantee covers a changed label too (at twice the ε); label DP does not
    cover a whole example, and local DP on an output covers no training label.
    """
    if unit == need or (need == "label" and unit == "example"):
        return None
    if unit == "output":
        return "it protects one released output vector, not a training label"
    return (
        "label DP protects one training label, not a whole example (its features, or whether "
        "it is in the data)"
    )


def _curve_values(curve: Curve, target: Target, band: str) -> list[float]:
    pick = {"mean": np.mean, "worst": np.min, "best": np.max}[band]
    return [float(pick([target.goodness(s) for s in p.scores])) for p in curve.points]


def best_score(curve: Curve, target: Target) -> float:
    """The best score ``curve`` reaches at any computed ε, in the band ``target`` reads.

    The mean over the seeds, or the worst seed's when ``target`` is confident: the best target
    of its kind the curve answers.
    """
    values = _curve_values(curve, target, "worst" if target.confident else "mean")  # goodness
    return target.goodness(max(values))


def _crossing(curve: Curve, target: Target, band: str) -> Crossing | None:
    goal = target.goodness(target.threshold(curve.baseline))
    return first_crossing(curve.epsilons, _curve_values(curve, target, band), goal)


def answer(curve: Curve, target: Target) -> Answer:
    """``curve``'s smallest ε reaching ``target``, or the largest computed ε if none does."""
    main = _crossing(curve, target, "worst" if target.confident else "mean")
    low, high = _crossing(curve, target, "best"), _crossing(curve, target, "worst")
    at = main.epsilon if main is not None else curve.epsilons[-1]
    eps = curve.epsilons

    def read(values: list[float]) -> float:
        return value_at(eps, values, at)

    spent = float(f"{math.exp(read([math.log(p.spent) for p in curve.points])):.10g}")
    delta = max(p.delta for p in curve.points if p.epsilon in (at, *_bracket(main)))
    unit_eps, unit_delta = _in_unit(target.unit, curve.privacy_unit, spent, delta)
    scores = [target.goodness(v) for v in _curve_values(curve, target, "mean")]
    worst = [target.goodness(v) for v in _curve_values(curve, target, "worst")]
    best = [target.goodness(v) for v in _curve_values(curve, target, "best")]
    return Answer(
        mechanism=curve.mechanism,
        privacy_unit=curve.privacy_unit,
        neighbours=NEIGHBOURS.get(curve.privacy_unit, curve.privacy_unit),
        metric=curve.metric,
        threshold=target.threshold(curve.baseline),
        epsilon=None if main is None else main.epsilon,
        epsilon_low=None if low is None else low.epsilon,
        epsilon_high=None if high is None else high.epsilon,
        score=read(scores),
        score_low=min(read(worst), read(best)),
        score_high=max(read(worst), read(best)),
        epsilon_spent=spent,
        delta=delta,
        unit_epsilon=unit_eps,
        unit_delta=unit_delta,
        below=None if main is None else main.below,
        above=None if main is None else main.above,
        interpolated=main is not None and main.interpolated,
        points=len(eps),
        seeds=min(len(p.scores) for p in curve.points),
        smallest_epsilon=eps[0],
        largest_epsilon=eps[-1],
        low_interpolated=low is not None and low.interpolated,
        high_interpolated=high is not None and high.interpolated,
    )


def _bracket(crossing: Crossing | None) -> tuple[float, ...]:
    if crossing is None:
        return ()
    return tuple(e for e in (crossing.below, crossing.above) if e is not None)


def _in_unit(need: str, unit: str, epsilon: float, delta: float) -> tuple[float, float]:
    """The (ε, δ) in the unit the user needs: an example-level one doubled for a changed label."""
    if need == "label" and unit == "example":
        return label_guarantee_of_example(epsilon, delta)
    return epsilon, delta


def choose(curves: Iterable[Curve], target: Target) -> list[Answer]:
    """The answer of every curve that can give ``target``'s unit, best first.

    Those reaching the target come first, the smallest ε in the user's privacy unit first
    (ties: the higher score); then the others, the best score at their largest ε first.
    """
    answers = [
        answer(curve, target)
        for curve in curves
        if curve.points
        and curve.metric == target.metric
        and protection_gap(target.unit, curve.privacy_unit) is None
    ]

    def order(item: Answer) -> tuple[bool, float, float]:
        better = target.goodness(item.score)
        return (not item.reached, item.unit_epsilon if item.reached else 0.0, -better)

    return sorted(answers, key=order)
