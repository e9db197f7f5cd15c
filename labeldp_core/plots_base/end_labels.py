"""Labels at the ends of a chart's lines, in the lines' colours, instead of a legend.

A legend of eight mechanisms below a chart takes a third of a projector's 800 px; a name beside
each line's last point takes none of the chart's height and is read where the eye already is.
Each label is an annotation just past the x axis's right end, joined to its line's last point
by a thin line of the same colour. The text size and the plot's height are known only when the
figure is made projector-ready, so :func:`end_label_room` and :func:`spread_end_labels` (called
by ``projector_ready``) then widen the right margin for the longest label and move the labels
apart so that none covers another.
"""

import math
import textwrap

import plotly.graph_objects as go

from labeldp_core.plots_base.legend_names import rename_entry
from labeldp_core.plots_base.line_height import LINE_HEIGHT

__all__ = [
    "END_LABEL",
    "add_end_label",
    "end_label_room",
    "end_labels",
    "end_labels_as_legend",
    "spread_end_labels",
]

#: The name that marks an annotation as a line's end label.
END_LABEL = "end label"
#: Characters per line of a label before it wraps: short names stay on one line.
_LABEL_WIDTH = 20
#: The space kept between two labels, in px.
_GAP = 4


def _axis_value(axis: go.layout.XAxis | go.layout.YAxis, value: float) -> float:
    """``value`` where Plotly places an annotation on ``axis``: log10 of it on a log axis."""
    return math.log10(value) if axis.type == "log" else value


def add_end_label(figure: go.Figure, x: float, y: float, text: str, colour: str) -> None:
    """Name, in ``colour``, the line of ``figure`` whose last point is (``x``, ``y``).

    The label sits just past the right end of the x axis, whose range must be set; ``x`` and
    ``y`` are data values, on a log axis too. Long names wrap.
    """
    x_axis, y_axis = figure.layout.xaxis, figure.layout.yaxis
    if x_axis.range is None:
        raise ValueError("an end label needs the x axis's range")
    height = _axis_value(y_axis, y)
    at = min(max(_axis_value(x_axis, x), x_axis.range[0]), x_axis.range[1])
    figure.add_annotation(
        name=END_LABEL,
        text="<br>".join(textwrap.wrap(text, _LABEL_WIDTH)),
        align="left",
        x=at,
        y=height,
        axref="x",
        ax=x_axis.range[1],
        ayref="y",
        ay=height,
        xanchor="left",
        showarrow=True,
        arrowhead=0,
        arrowwidth=1.5,
        arrowcolor=colour,
        standoff=4,
        font={"color": colour},
    )


def end_labels(figure: go.Figure) -> list[go.layout.Annotation]:
    """The end labels of ``figure``."""
    return [a for a in figure.layout.annotations if a.name == END_LABEL]


def end_labels_as_legend(figure: go.Figure) -> bool:
    """On a narrow chart, name the lines in the legend under the plot, not at their ends.

    Names wrapped beside a phone's plot still took half of its 358 px chart (the plot was 157
    px wide in demo mode: issue 53, Compare on a phone); under the plot they take the height a
    phone has to spare. Each end label names the line of its colour in the legend (the series
    keeps its own name for the CSV: :func:`~labeldp_core.plots_base.legend_names.rename_entry`);
    a label of no line (the clean model's level, a shape) becomes a note inside the plot, right
    above its level at the axis's right end. Returns whether any line is now named below.

    >>> figure = go.Figure(go.Scatter(x=[1], y=[0.5], mode="lines+markers", name="rr [label]",
    ...                               line={"color": "red"}), {"xaxis": {"range": [0, 1]}})
    >>> add_end_label(figure, 1, 0.5, "Randomized response", "red")
    >>> add_end_label(figure, 1, 0.9, "clean labels: 0.9", "green")
    >>> end_labels_as_legend(figure)
    True
    >>> figure.data[0].name, end_labels(figure), figure.layout.annotations[0].text
    ('Randomized response', [], 'clean labels: 0.9')
    """
    labels = end_labels(figure)
    if not labels:
        return False
    lines = {t.line.color: t for t in figure.data if t.mode == "lines+markers"}
    for label in labels:
        text = (label.text or "").replace("<br>", " ")
        line = lines.get(label.font.color)
        if line is None:  # a level, not a line: noted above it, inside the plot
            label.update(text=text, showarrow=False, x=label.ax, xanchor="right", yanchor="bottom")
            label.name = None
            continue
        rename_entry(line, text)
        line.showlegend = True
    figure.layout.annotations = [a for a in figure.layout.annotations if a.name != END_LABEL]
    named = any(t.showlegend for t in lines.values())
    figure.update_layout(showlegend=named)
    return named


def _height(label: go.layout.Annotation, size: int) -> float:
    return (label.text or "").count("<br>") * size * LINE_HEIGHT + size * LINE_HEIGHT + _GAP


def end_label_room(figure: go.Figure, size: int) -> tuple[int, int]:
    """The right margin the end labels need and the plot height they fill, in px, at ``size``.

    (0, 0) for a figure without end labels. Each character is taken as 0.6 of the font size
    wide (Plotly's sans serif averages less).
    """
    labels = end_labels(figure)
    if not labels:
        return 0, 0
    longest = max(len(line) for a in labels for line in (a.text or "").split("<br>"))
    width = math.ceil(longest * 0.6 * size + 3 * _GAP)
    return width, math.ceil(sum(_height(a, size) for a in labels))


def spread_end_labels(figure: go.Figure, size: int, plot_height: float) -> None:
    """Set the end labels' text to ``size`` and move them apart on a plot ``plot_height`` px tall.

    Each label starts level with its line's last point; from the lowest up, a label that would
    cover the one below moves up, and from the highest down, one pushed past the top moves down.
    Needs the y axis's range (without it the labels stay level with their points).
    """
    labels = sorted(end_labels(figure), key=lambda a: a.y)
    for label in labels:
        label.font.size = size
    span = figure.layout.yaxis.range
    if not labels or span is None or plot_height <= 0:
        return
    low, high = span
    per_px = (high - low) / plot_height
    heights = [_height(a, size) for a in labels]
    centres = [(a.y - low) / per_px for a in labels]
    for i in range(len(labels)):
        floor = heights[i] / 2 if i == 0 else centres[i - 1] + (heights[i - 1] + heights[i]) / 2
        centres[i] = max(centres[i], floor)
    for i in reversed(range(len(labels))):
        ceiling = (
            plot_height - heights[i] / 2
            if i == len(labels) - 1
            else centres[i + 1] - (heights[i + 1] + heights[i]) / 2
        )
        centres[i] = min(centres[i], ceiling)
    for label, centre in zip(labels, centres, strict=True):
        label.ay = low + centre * per_px
        # A label level with a point at the axis's end needs no leader (it would be a dot).
        moved = abs(label.ay - label.y) / per_px >= 1 or label.x < label.ax
        label.arrowcolor = label.font.color if moved else "rgba(0, 0, 0, 0)"
