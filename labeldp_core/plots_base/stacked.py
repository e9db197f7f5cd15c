"""A row of panels stacked into one column on a narrow chart (a phone, a half-page column).

Three panels side by side on a phone's 358 px leave each about 90: their titles ran into each
other and their ticks turned on end (issue 53). On a narrow chart
:func:`~labeldp_core.plots_base.readable.projector_ready` stacks a figure's one row of panels into
one column instead, top to bottom in their order from left to right, each as wide as the chart
and titled above it. :func:`stack_panels` moves them into the column; once the titles and the
axis titles are wrapped and sized, :func:`place_panels` sets each panel's height and the gaps
between them, and says how tall the plot must be.
"""

import re
from itertools import pairwise

import plotly.graph_objects as go

from labeldp_core.plots_base.line_height import LINE_HEIGHT

__all__ = ["PANEL_PX", "Panel", "place_panels", "stack_panels"]

#: A panel's plot in px once stacked: tall enough to read its line, short enough to scroll past.
PANEL_PX = 200
#: The gap between stacked texts, in px.
_GAP = 6


#: A stacked panel: its x axis's and y axis's layout names and its title (None if untitled).
Panel = tuple[str, str, go.layout.Annotation | None]


def _row(figure: go.Figure) -> list[tuple[str, str]]:
    """The (x axis, y axis) names of the figure's panels, left to right, if they are one row.

    [] unless there are two panels or more, side by side, all at the same height.
    """
    layout = figure.layout
    names = sorted(
        (key for key in layout.to_plotly_json() if re.fullmatch(r"xaxis\d*", key)),
        key=lambda key: (layout[key].domain or (0, 1))[0],
    )
    pairs = [(x, "yaxis" + (layout[x].anchor or "y")[1:]) for x in names]
    heights = {tuple(layout[y].domain or (0, 1)) for _, y in pairs}
    starts = {(layout[x].domain or (0, 1))[0] for x, _ in pairs}
    return pairs if len(pairs) >= 2 and len(heights) == 1 and len(starts) == len(pairs) else []


def _title_of(figure: go.Figure, x_axis: str) -> go.layout.Annotation | None:
    """The subplot title over the panel of ``x_axis``: centred on its domain, at its top."""
    low, high = figure.layout[x_axis].domain or (0, 1)
    centre = (low + high) / 2
    for annotation in figure.layout.annotations:
        if (
            annotation.xref == "paper"
            and annotation.yref == "paper"
            and annotation.x is not None
            and abs(annotation.x - centre) < 1e-6
        ):
            return annotation
    return None


def stack_panels(figure: go.Figure) -> list[Panel]:
    """Put a figure's one row of panels in one column, each the chart's width.

    Changes ``figure`` in place; returns the panels (none if it is not one row of panels). Each
    panel's y axis shows its tick labels (a row shares the first panel's). The top panel's
    title stays above the plot; the others wait inside it until :func:`place_panels` puts each
    above its panel (so that they are not wrapped and lifted as titles of one row).
    """
    row = [(x_axis, y_axis, _title_of(figure, x_axis)) for x_axis, y_axis in _row(figure)]
    for index, (x_axis, y_axis, title) in enumerate(row):
        figure.layout[x_axis].domain = (0, 1)
        figure.layout[y_axis].showticklabels = True
        if title is not None:
            title.update(x=0.5, xanchor="center")
            if index:
                title.update(y=0.5, yanchor="bottom")
    return row


def _lines(text: str | None) -> int:
    return (text or "").count("<br>") + 1 if text else 0


def place_panels(figure: go.Figure, panels: list[Panel], tick: int, title: int) -> int:
    """Give each stacked panel its height and its title its place; return the plot's px.

    Between two panels: the upper one's tick labels (``tick`` px) and axis title, and the lower
    one's title (both ``title`` px), as :func:`stack_panels` left them wrapped.
    """
    if not panels:
        return 0
    gaps = []
    for (x_axis, _, _), (_, _, below) in pairwise(panels):
        axis_title = figure.layout[x_axis].title.text
        text_lines = _lines(axis_title) + _lines(below.text if below else None)
        gaps.append(tick * LINE_HEIGHT + text_lines * title * LINE_HEIGHT + 4 * _GAP)
    total = PANEL_PX * len(panels) + sum(gaps)
    top = total
    for index, (_, y_axis, panel_title) in enumerate(panels):
        bottom = top - PANEL_PX
        figure.layout[y_axis].domain = (max(bottom / total, 0.0), min(top / total, 1.0))
        if panel_title is not None and index:
            panel_title.update(y=top / total, yshift=_GAP)
        top = bottom - (gaps[index] if index < len(gaps) else 0)
    return round(total)
