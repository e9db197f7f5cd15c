"""The answer in words: one headline per privacy unit, and the nearest answer when none reaches.

Issue 53: a table of answers reads like a report for experts. A headline says, per privacy
unit, which mechanism reaches the target at the smallest ε and where its seeds reach it
("Randomized response reaches test accuracy 0.650 at ε ≈ 2.83, between ≈ 2.64 and ≈ 3.03 over
the seeds"); ≈ marks an ε read between two computed ones. When nothing reaches the target,
:func:`nearest` reads the same stored curves for what does: a lower target, another privacy
unit, or (when a curve still rises at its largest computed ε) a larger ε, which is not computed.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from labeldp_core.base.numbers import epsilon_text, score_text
from labeldp_core.choosing.answer import Answer, best_score, choose, protection_gap
from labeldp_core.choosing.choice import Choice
from labeldp_core.choosing.curves import Curve
from labeldp_core.choosing.summary import UNIT_ORDER
from labeldp_core.choosing.target import Target
from labeldp_core.registry import mechanism_title

__all__ = [
    "UNIT_HEADS",
    "Headline",
    "headlines",
    "nearest",
    "reached_sentence",
]

#: How a headline names the privacy unit of the mechanisms it speaks for.
UNIT_HEADS = {
    "label": "Label DP (protects one training label)",
    "example": "Example-level DP (protects one whole example)",
}


@dataclass(frozen=True)
class Headline:
    """One sentence of the answer, and the answer it gives (None: it gives no ε)."""

    text: str
    answer: Answer | None = None


def _goal(target: Target, found: Answer) -> str:
    """What the answer reaches, in words: 'test accuracy 0.900', 'a test MSE of 2.000'.

    The threshold is a score, so it is written as the page's scores are (:func:`score_text`).
    """
    if target.kind == "mse":
        return f"a test MSE of {score_text(found.threshold)}"
    goal = f"test accuracy {score_text(found.threshold)}"
    if target.kind == "within":
        goal += f" ({target.value:g} points below the clean model)"
    return goal


def reached_sentence(found: Answer, target: Target) -> str:
    """A reached answer: '<mechanism> reaches <goal> at ε ≈ x, between a and b over the seeds'."""
    if found.below is None:
        where = f"at ε ≤ {found.epsilon:g}, the smallest computed"
    else:
        where = f"at ε {found.near}{epsilon_text(found.epsilon, digits=3)}"
    if found.unit_epsilon != found.epsilon_spent:
        where += f" (ε {found.near}{epsilon_text(found.unit_epsilon, digits=3)} for one label)"
    if found.epsilon_high is None:
        seeds = (
            f"the best seed at ε {found.best_seed}, the worst not up to ε {found.largest_epsilon:g}"
        )
    else:
        seeds = f"between {found.spread(' and ')} over the seeds"
    return f"{mechanism_title(found.mechanism)} reaches {_goal(target, found)} {where}, {seeds}."


def headlines(choice: Choice) -> list[Headline]:
    """One headline per privacy unit among the answers, the units in the pages' order.

    A unit's headline gives its best answer (the answers come best first), or says that none
    of its mechanisms reaches the target at any computed ε, and the best score at the largest.
    """
    said = []
    for unit in UNIT_ORDER:
        group = [a for a in choice.answers if a.privacy_unit == unit]
        if not group:
            continue
        head = f"**{UNIT_HEADS.get(unit, unit)}**: "
        best = group[0]
        if best.reached:
            said.append(Headline(head + reached_sentence(best, choice.target), best))
            continue
        text = (
            f"no mechanism reaches {_goal(choice.target, best)} at any computed ε; the best, "
            f"{mechanism_title(best.mechanism)}, has {best.metric} {score_text(best.score)} at ε "
            f"{best.largest_epsilon:g}, its largest."
        )
        said.append(Headline(head + text))
    return said


def nearest(choice: Choice, other_unit: Choice | None = None) -> list[Headline]:
    """What reaches when nothing in ``choice`` does, read from the stored curves; [] otherwise.

    A lower target (the best any curve reaches, rounded down), then ``other_unit``'s best
    answer (the same target in another privacy unit, with what that unit leaves unprotected),
    then a larger ε when the best curve still rises at its largest computed ε (not computed).
    """
    if choice.reached or not choice.curves:
        return []
    said = []
    lower = _lower_target(choice.target, choice.curves)
    found = next((a for a in choose(choice.curves, lower) if a.reached), None)
    if found is not None:
        said.append(Headline("A lower target: " + reached_sentence(found, lower), found))
    other = None if other_unit is None else next(iter(other_unit.reached), None)
    if other is not None:
        gap = protection_gap(choice.target.unit, other.privacy_unit) or ""
        text = reached_sentence(other, other_unit.target).rstrip(".")
        said.append(
            Headline(f"Another privacy unit: {text}; but {gap.replace('label DP', 'it')}.", other)
        )
    rising = _still_rising(choice.target, choice.curves)
    if rising and not choice.beyond:
        said.append(Headline(rising))
    return said


def _lower_target(target: Target, curves: Sequence[Curve]) -> Target:
    """The target of the same kind, rounded to two decimals, that the best curve reaches."""
    best = max((best_score(c, target) for c in curves), key=target.goodness)
    if target.kind == "accuracy":
        return replace(target, value=math.floor(round(best * 100, 6)) / 100)
    if target.kind == "mse":
        step = 10 ** (math.floor(math.log10(best)) - 1)
        return replace(target, value=round(math.ceil(round(best / step, 6)) * step, 12))
    points = min((target.threshold(c.baseline) - best_score(c, target)) * 100 for c in curves)
    return replace(target, value=target.value + math.ceil(round(points * 2, 6)) / 2)


def _still_rising(target: Target, curves: Sequence[Curve]) -> str:
    """A sentence on the best curve still improving at its largest computed ε, or ""."""
    best = max(curves, key=lambda c: target.goodness(best_score(c, target)))
    if len(best.points) < 2:
        return ""
    last, before = best.points[-1], best.points[-2]
    if target.goodness(last.mean) <= target.goodness(before.mean):
        return ""
    return (
        f"A larger ε: {mechanism_title(best.mechanism)}'s {best.metric} still rises at its "
        f"largest computed ε ({score_text(before.mean)} at ε {before.epsilon:g}, "
        f"{score_text(last.mean)} at ε {last.epsilon:g}), so a larger ε may reach the target; "
        "none is computed here."
    )
