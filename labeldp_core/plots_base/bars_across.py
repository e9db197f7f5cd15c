"""Grouped bars laid across on a narrow chart, so each group's name has a row of its own.

Under upright bars a group's name gets its share of the plot's width: on a phone's 390 px, the
seven groups of What ε means' measured guesses got about 45 px each and their names ran into
each other (issue 53). Laid across, each group is a row with its name at the left, and the
rows take the height a phone has to spare.

A figure asks for it by setting :data:`ACROSS_WHEN_NARROW` in its layout's ``meta``; on a narrow
chart :func:`~labeldp_core.plots_base.readable.projector_ready` then calls :func:`lay_bars_across`.
Its bars turn horizontal, the markers drawn on them (a bound's tick) move with them, and the two
axes trade places. The chart's CSV is unchanged: every trace laid across is marked in its
``meta`` (:func:`laid_across`), and :func:`~labeldp_core.plots_base.common.figure_table` reads its
``x`` back as the value.
"""

import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

from labeldp_core.plots_base.line_height import LINE_HEIGHT

__all__ = ["ACROSS_WHEN_NARROW", "ROW_PX", "laid_across", "lay_bars_across"]

#: The key of a figure's ``layout.meta`` that asks for its bars across on a narrow chart.
ACROSS_WHEN_NARROW = "bars across when narrow"
#: The least height of one group's row once laid across, in px: room for its bars' values.
ROW_PX = 72
#: The room a row keeps above and below its name, in px.
_PAD_PX = 24
#: The key of a trace's ``meta`` that marks it laid across.
_LAID_ACROSS = "laid across"
#: A marker that ticks a level across an upright bar, and the same tick on a bar laid across.
_TICK_ACROSS = {"line-ew-open": "line-ns-open", "line-ew": "line-ns"}


def lay_bars_across(figure: go.Figure, tick_px: int) -> int:
    """Turn ``figure``'s upright bars across, in place, if it asks for it.

    Args:
        figure: the figure; its groups' names are its x axis's ``ticktext``.
        tick_px: the size of the names' font: every row is as tall as the longest name needs.

    Returns:
        The least height of the plot in px for its rows (at least :data:`ROW_PX` a group, more
        for names of several lines in a large font); 0 when the
        figure does not ask for it (it is left unchanged). A figure already laid across is
        left as it is, so that calling it twice changes nothing.
    """
    meta = figure.layout.meta
    if not (isinstance(meta, dict) and meta.get(ACROSS_WHEN_NARROW)):
        return 0
    if not any(laid_across(trace) for trace in figure.data):  # once: a second call keeps them
        _turn(figure)
    names = figure.layout.yaxis.ticktext or ()
    lines = max((name.count("<br>") + 1 for name in names), default=1)
    return len(names) * max(ROW_PX, round(lines * tick_px * LINE_HEIGHT) + _PAD_PX)


def _turn(figure: go.Figure) -> None:
    """Swap every trace's x and y (bars horizontal, ticks upright) and the two axes."""
    for trace in figure.data:
        x, y = trace.x, trace.y
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        trace.update(x=y, y=x, meta=meta | {_LAID_ACROSS: True})
        if trace.type == "bar":
            trace.orientation = "h"
        elif trace.marker.symbol in _TICK_ACROSS:
            trace.marker.symbol = _TICK_ACROSS[trace.marker.symbol]
    upright_x = figure.layout.xaxis.to_plotly_json()
    upright_y = figure.layout.yaxis.to_plotly_json()
    # The first group on top, as it was at the left.
    figure.layout.xaxis, figure.layout.yaxis = upright_y, upright_x | {"autorange": "reversed"}


def laid_across(trace: BaseTraceType) -> bool:
    """Whether :func:`lay_bars_across` turned ``trace``: its value is then its ``x``."""
    meta = getattr(trace, "meta", None)
    return isinstance(meta, dict) and bool(meta.get(_LAID_ACROSS))
