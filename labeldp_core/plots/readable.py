"""Figures readable on a projector: numbers on log axes, legends below, titles wrapped.

Plotly labels a log axis with the bare leading digit of its minor ticks ("5 0.1 2 5 1 2 5 10 2":
0.05 shows as "5"), puts the legend beside the plot (which squeezes it to a strip on a 1280 px
screen) and cuts a title longer than the plot is wide. :func:`projector_ready` fixes all three on
any figure, whatever page made it, and is applied where figures are shown and exported.
"""

import math
import textwrap

import plotly.graph_objects as go

__all__ = ["LOG_TICK_VALUES", "TICK_FONT", "log_tick_text", "projector_ready", "wrap"]

#: 1, 2 and 5 of every decade from 1e-6 to 1e7: Plotly draws only those inside the axis range.
LOG_TICK_VALUES: tuple[float, ...] = tuple(
    float(f"{m}e{e}") for e in range(-6, 8) for m in (1, 2, 5)
)
#: Tick labels at least 13 px and darker than the template's grey.
TICK_FONT = {"size": 13, "color": "#222"}
#: Characters per title line before it wraps, for a plot about half a 1280 px screen wide.
TITLE_WIDTH = 48
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0, "xanchor": "left"}


def log_tick_text(value: float) -> str:
    """A tick value as a reader writes it: 0.05, 0.2, 1, 20, 5,000, and 1e+6 or 1e-5 beyond.

    >>> [log_tick_text(v) for v in (1e-5, 0.05, 0.2, 1.0, 20.0, 5000.0, 1e6)]
    ['1e-5', '0.05', '0.2', '1', '20', '5,000', '1e+6']
    """
    if 1e-4 <= value < 1:
        return f"{value:g}"
    if 1 <= value < 1e6:
        return f"{value:,.0f}"
    return f"{value:.0e}".replace("e+0", "e+").replace("e-0", "e-")


def wrap(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` broken into lines of at most ``width`` characters with Plotly's ``<br>``.

    >>> wrap("keep and flip probabilities of randomized response", 24)
    'keep and flip<br>probabilities of<br>randomized response'
    """
    if "<br>" in text or len(text) <= width:
        return text
    return "<br>".join(textwrap.wrap(text, width))


def _log_axes(figure: go.Figure) -> list[str]:
    layout = figure.layout.to_plotly_json()
    return [
        name
        for name, axis in layout.items()
        if name[1:5] == "axis" and isinstance(axis, dict) and axis.get("type") == "log"
    ]


def projector_ready(figure: go.Figure) -> go.Figure:
    """``figure`` with readable log ticks, the legend below, wrapped titles and large ticks.

    Changes ``figure`` in place and returns it. Log axes get 1-2-5 ticks labelled as numbers;
    every title (the figure's, each axis's and each subplot's) wraps at :data:`TITLE_WIDTH`.
    """
    for name in _log_axes(figure):
        figure.layout[name].update(
            tickmode="array", tickvals=LOG_TICK_VALUES,
            ticktext=[log_tick_text(v) for v in LOG_TICK_VALUES], minor={"showgrid": False},
        )  # fmt: skip
    figure.update_xaxes(tickfont=TICK_FONT, title_font={"size": 14})
    figure.update_yaxes(tickfont=TICK_FONT, title_font={"size": 14})
    title = figure.layout.title.text
    lines = 1
    if title:
        figure.layout.title.text = wrap(title)
        lines = figure.layout.title.text.count("<br>") + 1
    for annotation in figure.layout.annotations:  # subplot titles are annotations
        if annotation.text and annotation.yref == "paper" and annotation.y == 1:
            annotation.text = wrap(annotation.text, TITLE_WIDTH // 2)
    legend_rows = math.ceil(sum(trace.showlegend is not False for trace in figure.data) / 3)
    figure.update_layout(
        legend=_LEGEND_BELOW, font={"size": 14},
        margin={"t": 30 + 22 * lines, "b": 70 + 24 * legend_rows},
    )  # fmt: skip
    return figure
