"""Where the price-of-privacy screen names its audits: by their marks, never over one another.

Each audited ε gets one name (whose bound, or the range of the bounds there) in the chart's
note size. Placement rule: one name after the other, a name takes, of the places beside its
marks (above them centred, above and to their left, above and to their right, then the same
one, two or three rows higher: stacked by vertical rank), the one crossed by the fewest points
of the claim y = ε, the lowest among equals, provided it stays inside the panel and covers no
mark and no name placed before it. A name with no such place is shortened (to the bound
alone), and if that finds none either, left off the chart (the block at the cursor then names
the audits of its ε, and each mark's hover says its own). The names are placed in order of ε
and in the reverse order (the highest marks have the least room under the panel's top), and
the better of the two is kept: fewer names left off, then shortened, then crossed by the
claim, then raised.

The figure does not know the width it will be drawn at, so every box is measured at the
narrowest plot it is drawn in (a 390 px phone's, :data:`NARROW_PLOT_PX`) with each character
taken wider than the chart's font draws it: at any wider width a box only shrinks towards the
point it is anchored at, so the names clear of each other on a phone are clear everywhere.
Heights are exact: the panel is a fixed number of px high.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeldp_core.plots_base.common import LABEL_DP_AXIS_RANGE
from labeldp_core.plots_base.line_height import LINE_HEIGHT

__all__ = ["NARROW_PLOT_PX", "PlacedName", "name_room", "narrow_chars", "place_names"]

#: The narrowest plot the screen is drawn in, in px: a 390 px phone's (293 px measured).
NARROW_PLOT_PX = 290
#: One character's width as a share of the font size: more than the chart's font draws
#: (measured 0.42 to 0.47 for "≥ 0.47–0.49"), so a box is never narrower than its text.
_CHAR_WIDTH = 0.55
#: The room kept above a mark's centre, in px (a 16 px diamond reaches 10.4 px above it: Plotly
#: draws diamonds 1.3 times their radius), and the half-height of a mark's box.
_ABOVE_MARK_PX = 13
_MARK_PX = 11
#: The places beside a mark, in order of preference: Plotly's text position, and how far the
#: box reaches left of the mark as a share of the box's width.
_SIDES = (("top center", 0.5), ("top left", 1.0), ("top right", 0.0))
#: How many rows higher than its marks a name may be stacked.
_ROWS = 4


def name_room(size: int) -> float:
    """The px a name of ``size`` px takes above its mark: the panel keeps them over its top mark.

    >>> name_room(20)
    39.0
    """
    return _ABOVE_MARK_PX + size * LINE_HEIGHT


def narrow_chars(size: int) -> int:
    """How many characters of ``size`` px text a line holds across the narrowest plot.

    >>> narrow_chars(16), narrow_chars(20)
    (32, 26)
    """
    return int(NARROW_PLOT_PX / (_CHAR_WIDTH * size))


@dataclass(frozen=True)
class PlacedName:
    """A name written at (``epsilon``, ``y``) in data units, at Plotly's ``position``.

    ``box`` is what it covers at the narrowest width, (ε, value) of its lower left and upper
    right corners: what a text written later keeps clear of.
    """

    epsilon: float
    y: float
    position: str
    text: str
    box: tuple[tuple[float, float], tuple[float, float]]


@dataclass(frozen=True)
class _Panel:
    """The audits' panel in px at the narrowest width: the scale of each axis."""

    height_px: float
    top: float

    def x(self, epsilon: float) -> float:
        """``epsilon``'s distance from the axis's left end, in px."""
        low, high = LABEL_DP_AXIS_RANGE
        return (math.log10(epsilon) - low) / (high - low) * NARROW_PLOT_PX

    def y(self, value: float) -> float:
        """``value``'s height above the panel's bottom, in px."""
        return value / self.top * self.height_px

    def at(self, x: float, y: float) -> tuple[float, float]:
        """The (ε, value) at (``x``, ``y``) px: the inverse of :meth:`x` and :meth:`y`."""
        low, high = LABEL_DP_AXIS_RANGE
        return 10 ** (low + x / NARROW_PLOT_PX * (high - low)), y / self.height_px * self.top


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two boxes (left, bottom, right, top) share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _candidates(
    panel: _Panel, epsilon: float, height: float, text: str, size: int
) -> list[tuple[tuple[float, float, float, float], str, int]]:
    """Each place beside the marks at (``epsilon``, ``height``): (box in px, position, row)."""
    wide, tall = len(text) * _CHAR_WIDTH * size, size * LINE_HEIGHT
    x, bottom = panel.x(epsilon), panel.y(height) + _ABOVE_MARK_PX
    return [
        (
            (
                x - share * wide,
                bottom + row * tall,
                x - share * wide + wide,
                bottom + (row + 1) * tall,
            ),
            position,
            row,
        )
        for row in range(_ROWS)
        for position, share in _SIDES
    ]


def place_names(
    names: Sequence[tuple[float, float, Sequence[str]]],
    marks: Sequence[tuple[float, float]],
    top: float,
    panel_px: float,
    size: int,
) -> list[PlacedName]:
    """Where each name of ``names`` goes, by the rule above.

    Args:
        names: one per audited ε, in any order: (ε, its marks' highest value, its texts, the
            preferred first: a text with no place gives way to the next, shorter one).
        marks: every audit's mark (ε, value proven): no name covers one.
        top: the top of the panel's y axis, in ε proven.
        panel_px: the panel's height in px.
        size: the names' font size in px.

    Returns the names that found a place, in order of ε (the others are left off).
    """
    panel = _Panel(panel_px, top)
    grid = np.geomspace(10 ** LABEL_DP_AXIS_RANGE[0], 10 ** LABEL_DP_AXIS_RANGE[1], 400)
    claim = [(panel.x(e), panel.y(e)) for e in grid]
    taken = [_mark_box(panel, e, v) for e, v in marks]
    tries = [_in_order(panel, sorted(names, reverse=r), size, taken, claim) for r in (False, True)]
    _, placed = min(tries, key=lambda found: found[0])
    return sorted(placed, key=lambda name: name.epsilon)


def _in_order(
    panel: _Panel,
    names: Sequence[tuple[float, float, Sequence[str]]],
    size: int,
    marks: Sequence[tuple[float, float, float, float]],
    claim: Sequence[tuple[float, float]],
) -> tuple[tuple[int, int, int, int], list[PlacedName]]:
    """``names`` placed one after the other, and what that costs.

    The cost: how many names were left off, and shortened, how many claim points cross them,
    how many rows they were raised in all.
    """
    taken, placed, cost = list(marks), [], [len(names), 0, 0, 0]
    for epsilon, height, texts in names:
        for shortened, text in enumerate(texts):
            found = _best_place(panel, (epsilon, height, text), size, taken, claim)
            if found is not None:
                crossed, row, position, box = found
                taken.append(box)
                lift = (_ABOVE_MARK_PX + row * size * LINE_HEIGHT) / panel.height_px * panel.top
                corners = (panel.at(box[0], box[1]), panel.at(box[2], box[3]))
                placed.append(PlacedName(epsilon, height + lift, position, text, corners))
                cost = [cost[0] - 1, cost[1] + shortened, cost[2] + crossed, cost[3] + row]
                break
    return tuple(cost), placed


def _best_place(
    panel: _Panel,
    name: tuple[float, float, str],
    size: int,
    taken: Sequence[tuple[float, float, float, float]],
    claim: Sequence[tuple[float, float]],
) -> tuple[int, int, str, tuple[float, float, float, float]] | None:
    """The free place for ``name`` (ε, height, text) crossed by the fewest ``claim`` points.

    (claim points crossed, row, Plotly position, box in px), the lowest and the earliest side
    among equals; None if every place leaves the panel or covers a box of ``taken``.
    """
    free = [
        (sum(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in claim), row, i, box)
        for i, (box, _, row) in enumerate(_candidates(panel, *name, size))
        if _inside(box, panel) and not any(_overlaps(box, other) for other in taken)
    ]
    if not free:
        return None
    crossed, row, index, box = min(free)
    return crossed, row, _SIDES[index % len(_SIDES)][0], box


def _mark_box(panel: _Panel, epsilon: float, value: float) -> tuple[float, float, float, float]:
    """A mark's box in px: the 16 px diamonds reach :data:`_MARK_PX` px from their centre."""
    x, y = panel.x(epsilon), panel.y(value)
    return (x - _MARK_PX, y - _MARK_PX, x + _MARK_PX, y + _MARK_PX)


def _inside(box: tuple[float, float, float, float], panel: _Panel) -> bool:
    """Whether ``box`` is inside the panel: from the axis's left end to its right, under its top."""
    return box[0] >= 0 and box[2] <= NARROW_PLOT_PX and box[1] >= 0 and box[3] <= panel.height_px
