"""Choosing ε: from a target score to the smallest ε per mechanism, and back.

One idea per module: :mod:`~labeldp_core.choosing.crossing` (where a computed curve first
reaches a target, on log ε), :mod:`~labeldp_core.choosing.curves` (a mechanism's computed
points), :mod:`~labeldp_core.choosing.target` (what is asked), :mod:`~labeldp_core.choosing.answer`
(the answer per mechanism, best first) and :mod:`~labeldp_core.choosing.summary` (each
mechanism's score at one ε, shared with Compare).
"""

from labeldp_core.choosing.answer import Answer, answer, choose, protection_gap
from labeldp_core.choosing.crossing import Crossing, first_crossing, value_at
from labeldp_core.choosing.curves import Curve, CurvePoint, curve_point
from labeldp_core.choosing.target import KINDS, UNITS, Target, make_target

__all__ = [
    "KINDS",
    "UNITS",
    "Answer",
    "Crossing",
    "Curve",
    "CurvePoint",
    "Target",
    "answer",
    "choose",
    "curve_point",
    "first_crossing",
    "make_target",
    "protection_gap",
    "value_at",
]
