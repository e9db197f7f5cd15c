"""Figures readable on a projector: large dark text, numbers on log axes, nothing overlapping.

Plotly labels a log axis with the bare leading digit of its minor ticks ("5 0.1 2 5 1 2 5 10 2":
0.05 shows as "5"), puts the legend beside the plot (which squeezes it to a strip on a 1280 px
screen), cuts a title longer than the plot is wide, and writes 12 px light grey axis titles.
:func:`projector_ready` fixes all of it on any figure, whatever page made it, and is applied where
figures are shown and exported; in demo mode (``demo=True``) every text is larger again.

Where each text goes, so that none covers another: the figure's title at the top of the figure;
under it, the notes above the plot (subplot titles, the chosen ε's label, boxed notes), stacked
by their height above the plot; the legend at the bottom of the figure, below the axis titles
(its own space reserved by Plotly), or, on a chart that names its lines at their ends instead
(:mod:`~labeldp_core.plots_base.end_labels`), those names in the right margin, spread apart; the
margins grow with long or rotated tick labels.
"""

import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from plotly.basedatatypes import BasePlotlyType

from labeldp_core.plots_base.bars_across import lay_bars_across
from labeldp_core.plots_base.end_labels import (
    END_LABEL,
    end_label_room,
    end_labels,
    end_labels_as_legend,
    spread_end_labels,
)
from labeldp_core.plots_base.legend_names import wrap_legend
from labeldp_core.plots_base.line_height import LINE_HEIGHT
from labeldp_core.plots_base.stacked import place_panels, stack_panels

__all__ = [
    "DEMO_SIZES",
    "LOG_TICK_VALUES",
    "NARROW_TITLE_WIDTH",
    "SIZES",
    "TEXT_COLOUR",
    "TICK_FONT",
    "TITLE_WIDTH",
    "TextSizes",
    "log_tick_text",
    "projector_ready",
    "wrap",
]

#: 1, 2 and 5 of every decade from 1e-6 to 1e7: Plotly draws only those inside the axis range.
LOG_TICK_VALUES: tuple[float, ...] = tuple(
    float(f"{m}e{e}") for e in range(-6, 8) for m in (1, 2, 5)
)
_DECADES = tuple(value for value in LOG_TICK_VALUES if f"{value:e}".startswith("1."))
#: Every text of a chart: near black, not the template's light grey.
TEXT_COLOUR = "#222"


@dataclass(frozen=True)
class TextSizes:
    """Font sizes in px of a chart's texts."""

    tick: int
    axis_title: int
    title: int
    legend: int
    note: int


#: At least 16 px for ticks and 18 px for titles: legible from the back of a room.
SIZES = TextSizes(tick=16, axis_title=18, title=20, legend=16, note=16)
#: Demo mode, on a projector: every text larger again.
DEMO_SIZES = TextSizes(tick=20, axis_title=22, title=26, legend=20, note=20)
#: Tick labels by default.
TICK_FONT = {"size": SIZES.tick, "color": TEXT_COLOUR}
#: Characters per title line before it wraps: on a chart the page's width (820 px at 1280), and
#: on one in a half-page column (400 px).
TITLE_WIDTH = 60
NARROW_TITLE_WIDTH = 36
#: Characters per line of a boxed note above the plot.
_NOTE_WIDTH = 72
#: Characters per line of an x axis's title (on a chart in a half-page column or on a phone, 24)
#: and of a y axis's (written upwards, so shorter).
_X_TITLE_WIDTH = 40
_NARROW_X_TITLE_WIDTH = 24
_Y_TITLE_WIDTH = 28
#: The gap between stacked texts, in px.
_GAP = 6
#: The least height in px a figure keeps for its plot, besides its margins and its legend; in
#: demo mode a little less, for its larger texts (a headline chart and its ε control fit 800 px).
_MIN_PLOT = 240
_DEMO_MIN_PLOT = 220
#: The least height of a narrow plot whose lines are named in the legend under it (Compare on
#: a phone: eight lines that beside the plot kept it 157 px wide, issue 53).
_NAMED_BELOW_PLOT = 320
#: Streamlit's height for a figure that sets none, and the width assumed for a chart the page's
#: width and for one in a half-page column, in px.
_DEFAULT_HEIGHT = 450
_WIDTH = 800
_NARROW_WIDTH = 400
#: A chart's width on a phone (390 px less the page's padding) and a legend entry's symbol and
#: gaps, in px: a narrow chart's legend entries wrap to fit the phone.
_PHONE_WIDTH = 358
_LEGEND_SYMBOL = 50


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


def _lines(text: str | None) -> int:
    return (text or "").count("<br>") + 1


def _assign(target: BasePlotlyType, values: Mapping[str, Any]) -> None:
    """``target.update(values)``, a property at a time: the same values, in the same order.

    Plotly's ``update`` on a figure's part records its changes and replays them on the figure
    when it ends; set one by one, each is validated as before and nothing is replayed: about a
    tenth of the time (issue 52: it was most of :func:`projector_ready`'s, on every chart). A
    dict given for a part (a font, a title) sets the keys it names and keeps the others, as
    ``update`` does; the parts are set before the plain values beside them, as ``update``
    writes them, so the figure's JSON is the same byte for byte.
    """
    parts = {}
    for key, value in values.items():
        part = target[key] if isinstance(value, Mapping) else None
        if isinstance(part, BasePlotlyType):
            parts[key] = part
            _assign(part, value)
    for key, value in values.items():
        if key not in parts:
            target[key] = value


def _is_above(annotation: go.layout.Annotation) -> bool:
    """Whether ``annotation`` is written above the plot (a subplot title, an ε label, a note)."""
    return (
        annotation.yref == "paper"
        and annotation.y is not None
        and annotation.y >= 1 - 1e-9
        and annotation.yanchor == "bottom"
    )


def _is_boxed(annotation: go.layout.Annotation) -> bool:
    """Whether ``annotation`` is a boxed note (a warning, not a title or a label)."""
    return bool(annotation.bordercolor or annotation.bgcolor)


def _above_size(annotation: go.layout.Annotation, sizes: TextSizes) -> int:
    return sizes.note if _is_boxed(annotation) else sizes.axis_title


def _stack_above(figure: go.Figure, sizes: TextSizes) -> float:
    """Lift the notes above the plot in rows by height; return the rows' total height in px.

    Notes at the same height (the subplot titles of one row, an ε label) share a row; a note
    asked higher (y > 1, e.g. a boxed warning) goes in the next row up, above them all.
    """
    above = [a for a in figure.layout.annotations if _is_above(a)]
    lifted = 0.0
    for level in sorted({a.y for a in above}):
        row = [a for a in above if a.y == level]
        for annotation in row:
            size = _above_size(annotation, sizes)
            _assign(annotation, {"yshift": lifted, "font": {"size": size, "color": TEXT_COLOUR}})
        lifted += (
            max(
                _lines(a.text) * _above_size(a, sizes) * LINE_HEIGHT
                + 2 * ((a.borderpad or 1) + (a.borderwidth or 0))
                for a in row
            )
            + _GAP
        )
    return lifted


def _columns(figure: go.Figure) -> int:
    """How many panels the figure draws side by side: its x axes' distinct domains (at least 1)."""
    domains = {tuple(axis.domain or (0, 1)) for axis in figure.select_xaxes()}
    return max(len(domains), 1)


def _panel_wrap(text: str, chars: int) -> str:
    """``text`` wrapped to ``chars`` characters a line, no word broken (a panel's share)."""
    return wrap(text, max(chars, *(len(word) for word in text.split())))


def _panel_overhang(figure: go.Figure, sizes: TextSizes) -> int:
    """About how far the rightmost panel's title may reach right of its panel, in px.

    Half its longest line (a character about 0.55 of the type's size): a title is centred on
    its panel, and on a phone a panel is narrower than its title's words. 0 for one panel.
    """
    titles = [a for a in figure.layout.annotations if _is_above(a) and not _is_boxed(a)]
    if _columns(figure) < 2 or not titles:
        return 0
    last = max(titles, key=lambda a: a.x or 0)
    longest = max(len(line) for line in (last.text or "").split("<br>"))
    return math.ceil(longest * 0.28 * sizes.axis_title)


def _wrap_annotations(figure: go.Figure, sizes: TextSizes, narrow: bool) -> None:
    """Wrap the notes above the plot to their share of its width; size the notes inside it.

    A subplot title gets its share of the width (of a narrow chart's, when ``narrow``); a title
    alone in its row, or a boxed note, about half (a boxed note in its smaller type, so more
    characters).
    """
    above = [a for a in figure.layout.annotations if _is_above(a)]
    per_row = max([sum(1 for b in above if b.y == a.y) for a in above], default=1)
    for annotation in figure.layout.annotations:
        if annotation.name == END_LABEL:  # sized and placed with the others of its kind
            continue
        if not _is_above(annotation):
            _assign(annotation, {"font": {"size": sizes.note, "color": TEXT_COLOUR}})
        elif _is_boxed(annotation):
            annotation.text = wrap(annotation.text or "", _NOTE_WIDTH * SIZES.note // sizes.note)
        else:
            narrow_width = NARROW_TITLE_WIDTH * 16 // sizes.axis_title
            if per_row == 1:
                annotation.text = wrap(annotation.text or "", narrow_width)
            else:
                width = narrow_width // per_row if narrow else max(80 // per_row, 12)
                annotation.text = _panel_wrap(annotation.text or "", width)


def _style_axes(figure: go.Figure, sizes: TextSizes, narrow: bool) -> None:
    # A narrow chart whose lines are named in its right margin keeps a plot about 150 px wide:
    # there a log axis ticks at the decades only, or its ticks turn on end and eat the plot's
    # height (and the names, spread over the height left, cover each other).
    ticks = _DECADES if narrow and end_labels(figure) else LOG_TICK_VALUES
    for name in _log_axes(figure):
        log_ticks = {
            "tickmode": "array",
            "tickvals": ticks,
            "ticktext": [log_tick_text(v) for v in ticks],
            "minor": {"showgrid": False},
        }
        _assign(figure.layout[name], log_ticks)
    # On a narrow chart each panel side by side gets its share of the width for its x title.
    x_width = _NARROW_X_TITLE_WIDTH // _columns(figure) if narrow else _X_TITLE_WIDTH
    widths = ((figure.select_xaxes, x_width), (figure.select_yaxes, _Y_TITLE_WIDTH))
    for select, width in widths:
        for axis in select():
            if axis.title.text:
                chars = width * SIZES.axis_title // sizes.axis_title
                axis.title.text = _panel_wrap(axis.title.text, chars)
    style = {
        "tickfont": {"size": sizes.tick, "color": TEXT_COLOUR},
        "title_font": {"size": sizes.axis_title, "color": TEXT_COLOUR},
        "automargin": True,
        "title_standoff": 8,
    }
    # Every axis, as update_xaxes and update_yaxes would each set them (x axes first, in their
    # natural order).
    for name in _axis_names(figure):
        _assign(figure.layout[name], style)


def _axis_names(figure: go.Figure) -> list[str]:
    """The layout's x axes, then its y axes, as ``select_xaxes`` and ``select_yaxes`` list them.

    In their natural order ("xaxis", "xaxis2", ..., "xaxis10"), the first of each even when the
    figure sets nothing on it.
    """
    return sorted(
        (name for name in figure.layout if name.startswith(("xaxis", "yaxis"))),
        key=lambda name: (name[0], int(name[5:] or 1)),
    )


def projector_ready(figure: go.Figure, *, demo: bool = False, narrow: bool = False) -> go.Figure:
    """``figure`` with large dark text, readable log ticks, and no text over another.

    Changes ``figure`` in place and returns it; applying it twice changes nothing. Log axes get
    1-2-5 ticks labelled as numbers; the figure's title and the notes above the plot wrap; the
    title sits at the top, the notes between it and the plot, the legend at the bottom under
    the axis titles, the lines' end labels (if any) in the right margin (see the module's
    docstring).

    Args:
        figure: any figure of :mod:`labeldp_core.plots`.
        demo: demo mode's larger text (:data:`DEMO_SIZES` instead of :data:`SIZES`).
        narrow: the chart goes in a half-page column (or on a phone): its title and its x
            axis's title wrap sooner, the lines' end labels become the legend under the plot
            (:func:`~labeldp_core.plots_base.end_labels.end_labels_as_legend`), a row of
            panels is stacked into one column (:mod:`~labeldp_core.plots_base.stacked`), and
            grouped bars that ask for it are laid across
            (:mod:`~labeldp_core.plots_base.bars_across`).
    """
    sizes = DEMO_SIZES if demo else SIZES
    panels = stack_panels(figure) if narrow else []
    across = lay_bars_across(figure, sizes.tick) if narrow else 0
    _style_axes(figure, sizes, narrow)
    named_below = narrow and end_labels_as_legend(figure)
    if narrow:
        wrap_legend(figure, math.floor((_PHONE_WIDTH - _LEGEND_SYMBOL) / (0.55 * sizes.legend)))
    top = _place_title(figure, sizes, narrow)
    legend = {
        "orientation": "h",
        "x": 0,
        "xanchor": "left",
        "xref": "container",
        "y": 0,
        "yanchor": "bottom",
        "yref": "container",
        "font": {"size": sizes.legend, "color": TEXT_COLOUR},
        "title": {"font": {"size": sizes.legend, "color": TEXT_COLOUR}, "side": "top"},
    }
    # On a narrow chart an x title wraps: its lines below the plot (or they take the plot's
    # height, and the end labels spread over more than is left, covering each other).
    x_title = max((_lines(a.title.text) for a in figure.select_xaxes()), default=1) if narrow else 1
    margin = {
        "t": top,
        "b": math.ceil((sizes.tick + x_title * sizes.axis_title) * LINE_HEIGHT + 3 * _GAP),
    }
    right, labels_height = end_label_room(figure, sizes.legend)
    if right:  # the lines' names in the right margin, not in a legend
        margin["r"] = right
    overhang = _panel_overhang(figure, sizes) if narrow else 0
    if overhang > margin.get("r", figure.layout.margin.r or 0):
        margin["r"] = overhang
    text = {"size": sizes.tick, "color": TEXT_COLOUR}
    _assign(figure.layout, {"legend": legend, "font": text, "margin": margin})
    below = _legend_height(figure, sizes, _NARROW_WIDTH if narrow else _WIDTH, grid=narrow)
    below += _category_overhang(figure, sizes)
    stacked = place_panels(figure, panels, sizes.tick, sizes.axis_title)
    least = _NAMED_BELOW_PLOT if named_below else _DEMO_MIN_PLOT if demo else _MIN_PLOT
    plot = max(least, labels_height, stacked, across)
    needed = margin["t"] + margin["b"] + below + plot
    if needed > (figure.layout.height or _DEFAULT_HEIGHT):  # room for the plot and the legend
        figure.layout.height = needed
    height = figure.layout.height or _DEFAULT_HEIGHT
    spread_end_labels(figure, sizes.legend, height - margin["t"] - margin["b"] - below)
    return figure


def _place_title(figure: go.Figure, sizes: TextSizes, narrow: bool) -> int:
    """Wrap the title and the notes above the plot, stack them; return the top margin in px."""
    title = figure.layout.title.text
    title_height = 0.0
    if title:
        # A chart the page's width holds TITLE_WIDTH characters in demo mode's larger type too
        # (820 px at 1280; one line less above a headline chart on a projector's 800 px).
        width = NARROW_TITLE_WIDTH * SIZES.title // sizes.title if narrow else TITLE_WIDTH
        figure.layout.title.text = wrap(title, width)
        title_height = _lines(figure.layout.title.text) * sizes.title * LINE_HEIGHT + 2 * _GAP
    _wrap_annotations(figure, sizes, narrow)
    above = _stack_above(figure, sizes)
    # The title's first line sits above the notes above the plot, and Plotly writes its other
    # lines below the first (anchored to the top of the figure, it would cut the first line).
    lower_lines = (_lines(figure.layout.title.text) - 1) * sizes.title * LINE_HEIGHT
    above += sizes.tick * 0.75 + _GAP  # the top tick label of a y axis reaches above the plot
    title_place = {
        "x": 0,
        "xref": "container",
        "xanchor": "left",
        "y": 1,
        "yref": "paper",
        "yanchor": "bottom",
        "pad": {"l": _GAP, "b": math.ceil(above + lower_lines)},
        "font": {"size": sizes.title, "color": TEXT_COLOUR},
    }
    _assign(figure.layout, {"title": title_place})
    return math.ceil(title_height + above + _GAP)


def _category_overhang(figure: go.Figure, sizes: TextSizes) -> int:
    """About how far long category labels on an x axis reach below one line of ticks, in px.

    Plotly turns labels that do not fit side by side by 30 degrees (their length then counts
    by half), and the plot loses that height: the figure gets it back.
    """
    labels = {str(x) for t in figure.data if t.x is not None for x in t.x if isinstance(x, str)}
    if not labels:
        return 0
    lines = [line for label in labels for line in label.split("<br>")]
    longest = max(len(line) for line in lines) * 0.55 * sizes.tick
    rows = max(label.count("<br>") + 1 for label in labels)
    turned = len(labels) * longest > 0.8 * _WIDTH
    return math.ceil((0.5 * longest if turned else 0) + (rows - 1) * sizes.tick * LINE_HEIGHT)


def _legend_height(figure: go.Figure, sizes: TextSizes, width: int, grid: bool = False) -> int:
    """About how tall the legend below the plot is, in px, on a chart ``width`` px wide.

    Plotly puts the entries on one row when they fit, each as wide as its own symbol and text
    (about 0.55 of the font size per character); else it fills rows with cells as wide as the
    widest entry. With ``grid`` (a narrow chart) the estimate follows that rule: eight
    mechanisms' names on a phone take a row each. Without, it packs entries of their own widths
    (a row short for a legend of long and short names; the wide headline charts are fitted to
    800 px with it). The legend's title takes a row of its own.
    """
    if figure.layout.showlegend is False:
        return 0
    names = [t.name or "" for t in figure.data if t.showlegend is not False and t.name]
    if len(names) < 2 and figure.layout.showlegend is not True:
        return 0
    if not names:
        return 0
    entries = [max(map(len, n.split("<br>"))) * 0.55 * sizes.legend + _LEGEND_SYMBOL for n in names]
    cells = [max(entries)] * len(entries) if grid and sum(entries) > width else entries
    rows, filled, tallest = 0, 0.0, 1  # lines of the rows before, the current row's width
    for name, entry in zip(names, cells, strict=True):
        lines = name.split("<br>")
        if filled and filled + entry > width:
            rows, filled, tallest = rows + tallest, 0.0, 1
        filled += entry
        tallest = max(tallest, len(lines))
    rows += tallest + bool(figure.layout.legend.title.text)
    return math.ceil(rows * sizes.legend * 1.45 + 2 * _GAP)
