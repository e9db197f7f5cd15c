"""The price of privacy on one screen: one ε cursor, what it protects and what it costs.

Three panels share the ε axis: what one release lets anyone learn about one training label (the
best guess from a prior π, πe^ε/(πe^ε + 1 − π): from the image's π, the attacker label DP
assumes, when the clean model's accuracy is known, and from the uniform prior 1/K, e^ε/(e^ε +
K − 1), each named by its prior, and the share of labels randomized response flips, (K − 1)/(e^ε
+ K − 1)); every chosen mechanism's test
accuracy (mean over seeds, band from the lowest to the highest seed); and the ε the audits proved
(the release, and the trained model's canaries) under the ε claimed. A slider and a play button
move the cursor through the cached ε only, as Plotly frames: the browser animates them with no
server, so the standalone HTML report plays too. Nothing is drawn at an ε the cache does not
hold; the closed forms are exact at any ε and drawn as curves.
"""

import html
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labeldp_core.accounting.risk import Prior, guess_bound, posterior_bound
from labeldp_core.engine.spec import RunResult
from labeldp_core.mechanisms import expected_flip_rate
from labeldp_core.plots.audit_names import PlacedName, name_room, narrow_chars, place_names
from labeldp_core.plots.compare import short_name
from labeldp_core.plots.scores import score_vs_epsilon
from labeldp_core.plots_base.colours import series_styles
from labeldp_core.plots_base.common import LABEL_DP_AXIS_RANGE, LABEL_DP_RANGE, on_white
from labeldp_core.plots_base.line_height import LINE_HEIGHT
from labeldp_core.plots_base.readable import DEMO_SIZES, SIZES, TextSizes
from labeldp_core.registry import MECHANISM_STYLES, MECHANISMS
from labeldp_core.services.price_of_privacy import MODEL, RELEASE, AuditedBound

__all__ = [
    "EMPTY_NOTE",
    "PLAY_SECONDS",
    "AccuracyAt",
    "accuracy_at",
    "bounds_at",
    "frame_epsilons",
    "price_of_privacy_figure",
]

#: How long the play button takes from the first cached ε to the last: a projector's minute.
PLAY_SECONDS = 60.0
#: What the figure says when the cache holds nothing for it.
EMPTY_NOTE = (
    "Nothing cached yet for these mechanisms: warm the cache (python -m labeldp_core warm) "
    "and the screen plays every ε computed."
)
#: The play buttons' gap above the panels, in px: clear of the top panel's title, on a phone too.
_BUTTONS_ABOVE_PX = 40
_CURSOR = {"color": "#555", "dash": "dash", "width": 2}
#: The closed forms of the top panel: legend name, the words before its value at the cursor,
#: the words after it ({k}: the number of classes), colour. The guess names its prior, and it is
#: the one risk number: an attack's gain beside it was read as the chance of guessing (issue 53).
_BOUNDS = (
    (
        "best guess of one label from the uniform prior 1/K (image unseen), e^ε/(e^ε+K−1)",
        "guess ≤",
        " from prior 1/{k}",
        "#0072B2",
    ),
    ("RR flip rate, (K−1)/(e^ε+K−1)", "RR flips", "", "#D55E00"),
)
#: The guess from the image's prior π, drawn when π is known: the attacker label DP assumes.
_IMAGE_GUESS = (
    "best guess of one label from the image's prior π, πe^ε/(πe^ε+1−π)",
    "guess ≤",
    " from the image's π {pi}",
    "#CC79A7",
)
#: How the value of a bound at the cursor says where it was proven.
_SOURCE = {RELEASE: "", MODEL: " (model)"}
#: Each panel's plot in px (the accuracies' eight lines need the most room to tell apart).
_PANEL_PX = (120, 190, 130)
#: The gap between stacked texts, in px.
_GAP = 6
#: Under the bottom panel, besides its tick labels and axis title: the slider, in px.
_SLIDER_PX = 90
#: Right of the plots, in tick font sizes: the ε axis's last tick (20) is centred on the plot's
#: edge and Plotly drops a tick that would cross the chart's (issue 53: the axis stopped at 10 and
#: the curves ran into the edge, on a phone most visibly).
_RIGHT_TICKS = 1.5
#: The highest a block of text reaches, as a share of its panel: clear of the panel's title.
_BLOCK_TOP = 0.9
#: One character's width in decades of the ε axis per px of font size (about 6.5 px of 770 px
#: for 2.6 decades at 12 px), so that a block beside the cursor stays inside a phone's chart.
_DECADES_PER_CHAR_PX = 0.022 / 12
#: From this ε on, the values at the cursor are written on its left (the curves end at 20).
_WRITE_LEFT_FROM = 3.0
#: Short enough for a phone's 390 px (the caption says the rest).
_TITLES = (
    "What one label gives away",
    "Test accuracy: seeds' mean and range",
    "ε proven by audits (95% bound)",
)


@dataclass(frozen=True)
class AccuracyAt:
    """One mechanism's test accuracy at one ε asked: over the seeds cached there."""

    mechanism: str
    epsilon_spent: float
    mean: float
    low: float
    high: float
    seeds: int


@dataclass(frozen=True)
class _AuditsPanel:
    """What the block at the cursor needs of the audits' panel.

    The points it keeps clear of (:func:`_audit_curve`), and the ε whose names are written
    (there the block writes nothing: the name says it).
    """

    avoid: np.ndarray
    named: frozenset[float]


@dataclass(frozen=True)
class _Layout:
    """Where the panels go: each its own height in px, its values written in a band under it.

    The values at the cursor of the top two panels are written under each panel, outside the
    plot, so that no line crosses them whatever the data, on a phone too; the audits' few
    values are written beside the cursor. The figure is as tall as the panels and bands need
    at the mode's note size (demo mode's is larger).
    """

    size: int
    height: int
    domains: tuple[tuple[float, float], ...]


def _layout(sizes: TextSizes, readout_lines: tuple[int, int]) -> _Layout:
    """The panels' domains (top first) and the figure's height for ``readout_lines`` per band.

    From the bottom of the plot up: the slider with the ε axis's ticks and title, the audits,
    the middle panel's band and the audits' title, the accuracies, the top band and the
    accuracies' title, the top panel. The top and bottom margins are about what
    :func:`~labeldp_core.plots_base.readable.projector_ready` gives them (title, top panel's
    title; tick labels, axis title).
    """
    title = sizes.axis_title * LINE_HEIGHT + _GAP
    bands = [lines * sizes.note * LINE_HEIGHT + 2 * _GAP for lines in readout_lines]
    slider = (sizes.tick + sizes.axis_title) * LINE_HEIGHT + _SLIDER_PX
    edges = [slider, slider + _PANEL_PX[2]]
    edges += [edges[-1] + title + bands[1], edges[-1] + title + bands[1] + _PANEL_PX[1]]
    edges += [edges[-1] + title + bands[0], edges[-1] + title + bands[0] + _PANEL_PX[0]]
    plot = edges[-1]
    margins = (
        sizes.title + sizes.axis_title + sizes.tick + sizes.axis_title
    ) * LINE_HEIGHT + 6 * _GAP
    domains = tuple((edges[i] / plot, edges[i + 1] / plot) for i in (4, 2, 0))
    return _Layout(sizes.note, round(plot + margins), domains)


def _name(mechanism: str) -> str:
    """A mechanism's short name, as its line is called: 'RR', 'DP-SGD'."""
    return short_name(MECHANISMS[mechanism].title) if mechanism in MECHANISMS else mechanism


def frame_epsilons(
    results: Mapping[str, Sequence[RunResult]], audits: Sequence[AuditedBound] = ()
) -> tuple[float, ...]:
    """The ε of the frames: every ε asked that a result or an audit is cached at, in range."""
    low, high = LABEL_DP_RANGE
    cached = {r.epsilon for rows in results.values() for r in rows if r.test_accuracy is not None}
    cached |= {a.epsilon for a in audits}
    return tuple(sorted(e for e in cached if low <= e <= high))


def bounds_at(epsilon: float, num_classes: int) -> tuple[float, float]:
    """(best guess, RR flip rate) for one label at ``epsilon``, in closed form.

    >>> [round(v, 4) for v in bounds_at(float(np.log(9)), 2)]
    [0.9, 0.1]
    """
    return guess_bound(epsilon, num_classes), expected_flip_rate(epsilon, num_classes)


def _rows(prior: Prior | None) -> tuple[tuple[str, str, str, str], ...]:
    """The top panel's closed forms: the two of :data:`_BOUNDS`, and the image's guess."""
    return _BOUNDS if prior is None else (*_BOUNDS, _IMAGE_GUESS)


def _values(epsilon: float, num_classes: int, prior: Prior | None) -> list[float]:
    """The top panel's values at ``epsilon``, in the order of :func:`_rows`."""
    values = list(bounds_at(epsilon, num_classes))
    return values if prior is None else [*values, posterior_bound(epsilon, prior.probability)]


def _bound_words(epsilon: float, num_classes: int, prior: Prior | None) -> list[str]:
    """What the top panel writes beside the cursor: each value with its prior where it has one.

    >>> _bound_words(1.0, 10, Prior(0.95, "clean"))[::2]
    ['guess ≤ 23% from prior 1/10', "guess ≤ 98% from the image's π 95%"]
    """
    pi = "" if prior is None else f"{prior.probability:.0%}"
    return [
        f"{before} {_percent(v)}{after.format(k=num_classes, pi=pi)}"
        for (_, before, after, _), v in zip(
            _rows(prior), _values(epsilon, num_classes, prior), strict=True
        )
    ]


def accuracy_at(results: Mapping[str, Sequence[RunResult]], epsilon: float) -> list[AccuracyAt]:
    """Each mechanism's accuracy over the seeds cached at exactly ``epsilon`` (none: left out)."""
    found = []
    for mechanism, rows in results.items():
        here = [r for r in rows if r.epsilon == epsilon and r.test_accuracy is not None]
        if here:
            scores = [float(r.test_accuracy) for r in here]
            found.append(
                AccuracyAt(
                    mechanism,
                    max(r.epsilon_spent for r in here),
                    float(np.mean(scores)),
                    min(scores),
                    max(scores),
                    len(here),
                )
            )
    return found


def _frame(
    epsilon: float,
    num_classes: int,
    evidence: tuple[Mapping[str, Sequence[RunResult]], Sequence[AuditedBound], Prior | None],
    tops: Sequence[float],
    size: int,
    panel: _AuditsPanel,
) -> list[go.Scatter]:
    """The moving traces at ``epsilon``: the cursor in each panel (up to its ``tops``), values.

    In order: three cursors, then in each panel the markers and their values written in one
    block of ``size`` px text: the bounds and the accuracies under their panels
    (:func:`_readout`); the audits beside the cursor (:func:`_written`, clear of the audits'
    panel's lines and names) where their name found no room (elsewhere the name says it). The
    values name what they show, so the figure needs no legend; a chosen mechanism not computed
    at ``epsilon`` is named as such, never left out silently.
    """
    results, audits, prior = evidence
    cursors = [
        go.Scatter(x=[epsilon, epsilon], y=[0, top], mode="lines", line=_CURSOR, hoverinfo="skip")
        for top in tops
    ]
    values = _values(epsilon, num_classes, prior)
    colours = [row[-1] for row in _rows(prior)]
    bounds = go.Scatter(
        x=[epsilon] * len(values),
        y=list(values),
        mode="markers",
        marker={"size": 14, "color": colours},
        hoverinfo="skip",
    )
    points = accuracy_at(results, epsilon)
    styles = series_styles(results, MECHANISM_STYLES)
    here = [a for a in audits if a.epsilon == epsilon]
    proven = [
        (f"{_name(a.mechanism)}{_SOURCE[a.source]} ≥ {a.lower_bound:.2g}", "#222")
        for a in here
        if epsilon not in panel.named
    ]
    words = _highest_first(_bound_words(epsilon, num_classes, prior), colours, values)
    return [
        *cursors,
        bounds,
        _readout(words, size),
        _accuracy_markers(points, styles),
        _readout(_accuracy_lines(results, epsilon, size), size),
        _audit_markers(here),
        _written(epsilon, proven, (0, tops[2]), panel.avoid, size),
    ]


def _accuracy_lines(
    results: Mapping[str, Sequence[RunResult]], epsilon: float, size: int
) -> list[tuple[str, str]]:
    """The accuracies' block at ``epsilon``: (text, colour) a line, highest first.

    The mechanisms not computed there are named last, wrapped to the narrowest plot's width.
    """
    points = accuracy_at(results, epsilon)
    styles = series_styles(results, MECHANISM_STYLES)
    absent = [_name(m) for m in results if m not in {p.mechanism for p in points}]
    lines = _highest_first(
        [f"{_name(p.mechanism)} {p.mean:.2f}" for p in points],
        [styles[p.mechanism][0] for p in points],
        [p.mean for p in points],
    )
    said = f"not computed at ε {epsilon:g}: {', '.join(absent)}"
    wrapped = textwrap.wrap(said, narrow_chars(size), break_long_words=False) if absent else []
    return lines + [(line, "#555") for line in wrapped]


def _percent(value: float) -> str:
    """A probability as a percentage, with a decimal near 0 and 1: 23%, 99.7%, 0.3%.

    >>> _percent(0.2313), _percent(0.99703), _percent(0.0029)
    ('23%', '99.7%', '0.3%')
    """
    return f"{value:.0%}" if 0.01 <= value <= 0.99 else f"{value:.1%}"


def _highest_first(
    texts: Sequence[str], colours: Sequence[str], values: Sequence[float]
) -> list[tuple[str, str]]:
    """(text, colour) pairs in the order of their ``values``, highest first, as the lines lie.

    >>> _highest_first(["a", "b"], ["red", "blue"], [0.1, 0.9])
    [('b', 'blue'), ('a', 'red')]
    """
    rows = sorted(zip(values, texts, colours, strict=True), key=lambda row: -row[0])
    return [(text, colour) for _, text, colour in rows]


def _block(lines: Sequence[tuple[str, str]]) -> str:
    """``lines`` (text, colour) as one block of text, a line each, each in its colour."""
    return "<br>".join(f"<span style='color:{c}'>{html.escape(t)}</span>" for t, c in lines)


def _readout(lines: Sequence[tuple[str, str]], size: int) -> go.Scatter:
    """``lines`` (text, colour) as one block under its panel, from the panel's left edge.

    Outside the plot, in the band the layout keeps under the panel: no line crosses it at any
    ε, and it stays in place while the cursor moves, where the eye finds it again.
    """
    return go.Scatter(
        x=[LABEL_DP_RANGE[0]],
        y=[0],
        mode="markers+text",
        marker={"size": 12, "opacity": 0},  # an unseen marker: the text clears the axis
        text=[_block(lines)],
        textposition="bottom right",
        textfont={"size": size},
        cliponaxis=False,
        hoverinfo="skip",
    )


def _written(
    epsilon: float,
    lines: Sequence[tuple[str, str]],
    span: tuple[float, float],
    curve: np.ndarray,
    size: int,
) -> go.Scatter:
    """``lines`` (text, colour) as one block beside the cursor, where the audits' lines are not.

    One block of ``size`` px text, a line each, in the order given, so no text covers another;
    on the cursor's right, or its left towards the end of the axis, at the height of ``span``
    whose box holds the fewest points of ``curve`` (the audits' panel's lines, (2, n) as x and
    y), the nearest to the values among equals.
    """
    side = "left" if epsilon >= _WRITE_LEFT_FROM else "right"
    low, high = span
    if not lines:
        return go.Scatter(x=[], y=[], mode="text", hoverinfo="skip")
    tall = min(len(lines) * size * LINE_HEIGHT / _PANEL_PX[2], 1.0)
    wide = max(len(text) for text, _ in lines) * _DECADES_PER_CHAR_PX * size
    x0, x1 = np.log10(epsilon) + (np.array([-wide, 0]) if side == "left" else np.array([0, wide]))
    inside_x = (np.log10(curve[0]) >= x0) & (np.log10(curve[0]) <= x1)
    best = None
    for centre in np.linspace(tall / 2, max(_BLOCK_TOP - tall / 2, tall / 2), 9):
        share = (curve[1] - low) / (high - low)
        crossed = int(np.sum(inside_x & (np.abs(share - centre) <= tall / 2)))
        if best is None or crossed < best[0]:
            best = (crossed, centre)
    return go.Scatter(
        x=[epsilon],
        y=[low + best[1] * (high - low)],
        mode="markers+text",
        marker={"size": 22, "opacity": 0},
        text=[_block(lines)],
        textposition=f"middle {side}",
        textfont={"size": size},
        cliponaxis=False,
        hoverinfo="skip",
    )


def _audit_curve(audits: Sequence[AuditedBound], names: Sequence[PlacedName]) -> np.ndarray:
    """What the block at the cursor avoids: the audits' panel's lines, marks and names.

    As points, a (2, n) array of x and y; each name as a grid of points over its box.
    """
    grid = np.geomspace(*LABEL_DP_RANGE, 60)
    proven = [(a.epsilon, a.lower_bound) for a in audits] + [(e, e) for e in grid]
    for name in names:
        (left, bottom), (right, top) = name.box
        proven += [(x, y) for x in np.geomspace(left, right, 6) for y in (bottom, top)]
    return np.array(proven, dtype=float).T


def _accuracy_markers(
    points: Sequence[AccuracyAt], styles: Mapping[str, tuple[str, str]]
) -> go.Scatter:
    """Each mechanism's mean at the cursor, its seeds' band as the error bar."""
    return go.Scatter(
        x=[p.epsilon_spent for p in points],
        y=[p.mean for p in points],
        mode="markers",
        marker={
            "size": 14,
            "color": [styles[p.mechanism][0] for p in points],
            "line": {"width": 2},
        },
        error_y={
            "type": "data",
            "array": [p.high - p.mean for p in points],
            "arrayminus": [p.mean - p.low for p in points],
            "thickness": 3,
        },
        customdata=[[_name(p.mechanism), p.seeds, p.low, p.high] for p in points],
        hovertemplate="%{customdata[0]}: %{y:.3f} (%{customdata[1]} seeds, "
        "%{customdata[2]:.3f} to %{customdata[3]:.3f})<extra></extra>",
    )


def _audit_markers(here: Sequence[AuditedBound]) -> go.Scatter:
    """The bounds proven at the cursor: diamonds for the release, squares for the model."""
    return go.Scatter(
        x=[a.epsilon for a in here],
        y=[a.lower_bound for a in here],
        mode="markers",
        marker={
            "size": 16,
            "color": "#222",
            "symbol": ["square" if a.source == MODEL else "diamond" for a in here],
        },
        hoverinfo="skip",
    )


def _static_traces(
    figure: go.Figure,
    num_classes: int,
    evidence: tuple[Mapping[str, Sequence[RunResult]], Sequence[AuditedBound], Prior | None],
    top: float,
    size: int,
) -> list[PlacedName]:
    """What stays while the cursor moves: the closed forms, the accuracy curves, the claims.

    Returns the audits' names where they were written (the audits' panel's y axis ends at
    ``top``; ``size``: the names' font size).
    """
    results, audits, prior = evidence
    _bound_curves(figure, num_classes, prior)
    named = {_name(m): rows for m, rows in results.items()}
    curves = score_vs_epsilon(
        named, at_spent=True, mechanisms=dict(zip(named, results, strict=True))
    )
    for trace in curves.data:
        figure.add_trace(trace, row=2, col=1)
    return _audit_points(figure, audits, top, size)


def _bound_curves(figure: go.Figure, num_classes: int, prior: Prior | None) -> None:
    """The closed forms over the whole axis (exact at every ε), and the uniform prior 1/K."""
    grid = np.geomspace(*LABEL_DP_RANGE, 200)
    columns = np.array([_values(float(e), num_classes, prior) for e in grid]).T
    for (name, _, _, colour), values in zip(_rows(prior), columns, strict=True):
        figure.add_scatter(
            x=grid,
            y=values,
            name=name,
            row=1,
            col=1,
            line={"color": colour, "width": 3},
            hoverinfo="skip",
        )
    blind = 1 / num_classes
    figure.add_scatter(
        x=list(LABEL_DP_RANGE),
        y=[blind, blind],
        name=f"uniform prior 1/K = {blind:.0%}",
        line={"color": "grey", "dash": "dot"},
        row=1,
        col=1,
        hoverinfo="skip",
    )


def _audit_points(
    figure: go.Figure, audits: Sequence[AuditedBound], top: float, size: int
) -> list[PlacedName]:
    """The claim (ε proven = ε claimed) and every cached bound, named beside it and in its hover.

    The claim is drawn through many points: on the log ε axis, y = ε is a curve. Returns the
    names as :func:`_audit_names` wrote them.
    """
    grid = np.geomspace(*LABEL_DP_RANGE, 60)
    figure.add_scatter(
        x=grid,
        y=grid,
        name="ε claimed",
        line={"color": "grey", "dash": "dash"},
        row=3,
        col=1,
        hoverinfo="skip",
    )
    for source, symbol in ((RELEASE, "diamond-open"), (MODEL, "square-open")):
        shown = [a for a in audits if a.source == source]
        figure.add_scatter(
            x=[a.epsilon for a in shown],
            y=[a.lower_bound for a in shown],
            mode="markers",
            name=f"ε proven, {source}",
            marker={"symbol": symbol, "size": 11, "color": "#222"},
            customdata=[[_name(a.mechanism), a.case, a.claim, a.delta] for a in shown],
            hovertemplate="%{customdata[0]} at ε %{x:g} (%{customdata[1]}): ε ≥ %{y:.3f}, "
            "claim %{customdata[2]:.3g} (δ %{customdata[3]:.2g})<extra></extra>",
            row=3,
            col=1,
        )
    return _audit_names(figure, audits, top, size)


def _audit_names(
    figure: go.Figure, audits: Sequence[AuditedBound], top: float, size: int
) -> list[PlacedName]:
    """By each ε's bounds what they prove, short (the cursor's block names them all).

    In the chart's note size ``size``, each where :func:`~.audit_names.place_names` finds it a
    place clear of the other names and the marks (``top``: the panel's y axis's top).
    """
    by_epsilon: dict[float, list[AuditedBound]] = {}
    for audit in audits:
        by_epsilon.setdefault(audit.epsilon, []).append(audit)
    names = [(e, max(a.lower_bound for a in here), _proven(here)) for e, here in by_epsilon.items()]
    marks = [(a.epsilon, a.lower_bound) for a in audits]
    placed = place_names(names, marks, top, _PANEL_PX[2], size)
    figure.add_scatter(
        x=[name.epsilon for name in placed],
        y=[name.y for name in placed],
        mode="text",
        text=[name.text for name in placed],
        textposition=[name.position for name in placed],
        textfont={"size": size, "color": "#222"},
        cliponaxis=False,
        hoverinfo="skip",
        row=3,
        col=1,
    )
    return placed


def _proven(here: Sequence[AuditedBound]) -> tuple[str, ...]:
    """What the audits at one ε proved, short: whose, if one, else the range; and shorter.

    The second text, for where the first has no room, is the bound alone.
    """
    bounds = [a.lower_bound for a in here]
    if len(here) == 1:
        whose = f"{_name(here[0].mechanism)}{_SOURCE[here[0].source]}"
        return (f"{whose} ≥ {bounds[0]:.2g}", f"≥ {bounds[0]:.2g}")
    return (f"≥ {min(bounds):.2g}–{max(bounds):.2g}",)


def _panels(layout: _Layout) -> go.Figure:
    """Three panels over one log ε axis where ``layout`` puts them, each titled above it."""
    figure = make_subplots(rows=3, cols=1, shared_xaxes=True, subplot_titles=_TITLES)
    for name, domain, annotation in zip(
        ("yaxis", "yaxis2", "yaxis3"), layout.domains, figure.layout.annotations, strict=True
    ):
        figure.layout[name].domain = domain
        annotation.update(y=domain[1], yanchor="bottom", x=0, xanchor="left")
    figure.update_xaxes(type="log", range=LABEL_DP_AXIS_RANGE)
    figure.update_xaxes(title="ε (log scale)", row=3, col=1)
    return figure


def _play_controls(epsilons: Sequence[float], seconds: float) -> dict:
    """The slider through the frames under the panels, the play / pause buttons above them."""
    step = {"mode": "immediate", "transition": {"duration": 0}}
    each = {"duration": round(1000 * seconds / len(epsilons)), "redraw": True}
    play = [None, step | {"frame": each, "fromcurrent": True}]
    pause = [[None], step | {"frame": {"duration": 0, "redraw": False}}]
    slider = {
        "active": 0,
        "x": 0,
        "len": 1,
        "y": 0,
        "yanchor": "bottom",
        "pad": {"t": 0},
        "currentvalue": {"prefix": "ε = ", "font": {"size": 22}},
        "font": {"size": 14},
        "steps": [
            {
                "label": f"{e:g}",
                "method": "animate",
                "args": [[_frame_name(e)], step | {"frame": {"duration": 0, "redraw": True}}],
            }
            for e in epsilons
        ],
    }
    buttons = {  # above the panels, beside the title: on a projector's first screen
        "type": "buttons",
        "direction": "left",
        "showactive": False,
        "x": 1,
        "xanchor": "right",
        "y": 1,
        "yanchor": "bottom",
        "pad": {"b": _BUTTONS_ABOVE_PX},
        "buttons": [
            {"label": "▶ Play", "method": "animate", "args": play},
            {"label": "❚❚ Pause", "method": "animate", "args": pause},
        ],
    }
    return {"sliders": [slider], "updatemenus": [buttons]}


def _audits_top(audits: Sequence[AuditedBound], size: int) -> float:
    """The audits' panel's y axis's top: room above the highest mark for a name of ``size`` px.

    >>> round(_audits_top([], 12), 3), round(_audits_top([], 20), 3)
    (1.35, 1.429)
    """
    room = _PANEL_PX[2] / (_PANEL_PX[2] - name_room(size))
    return max(1.35, room) * max([a.claim for a in audits] + [a.lower_bound for a in audits] + [1])


def _frame_name(epsilon: float) -> str:
    return f"{epsilon:.6g}"


def price_of_privacy_figure(
    results: Mapping[str, Sequence[RunResult]],
    num_classes: int,
    audits: Sequence[AuditedBound] = (),
    seconds: float = PLAY_SECONDS,
    prior: Prior | None = None,
    demo_text: bool = False,
) -> go.Figure:
    """The price of privacy over the cached ε, one frame per ε, played in ``seconds``.

    Args:
        results: cached results by mechanism id (several seeds per ε make the band).
        num_classes: K, for the closed forms.
        audits: cached lower bounds on ε (release and trained model).
        seconds: how long the play button takes through every frame.
        prior: the image's prior on one label, if known: its guess bound is drawn beside the
            uniform prior's.
        demo_text: write the values in demo mode's note size (the figure grows to hold them), as
            :func:`~labeldp_core.plots_base.readable.projector_ready` sizes every other note.

    Returns a figure whose frames are named by their ε; its first frame is drawn. With nothing
    cached, a figure with :data:`EMPTY_NOTE` and no frame.
    """
    epsilons = frame_epsilons(results, audits)
    sizes = DEMO_SIZES if demo_text else SIZES
    shown = {m: [r for r in rows if r.epsilon in epsilons] for m, rows in results.items()}
    lines = [len(_accuracy_lines(shown, e, sizes.note)) for e in epsilons]
    layout = _layout(sizes, (len(_rows(prior)), max([*lines, 1])))
    figure = _panels(layout)
    on_white(figure).update_layout(
        height=layout.height,
        showlegend=False,
        title=f"K = {num_classes} classes",  # short: the buttons share its row on a phone
        margin={"r": round(_RIGHT_TICKS * sizes.tick)},
    )
    if not epsilons:
        note = {"x": 0.5, "y": 0.6, "xref": "paper", "yref": "paper", "showarrow": False}
        figure.add_annotation(text=EMPTY_NOTE, bordercolor="#999", borderpad=6, **note)
        return figure
    top = _audits_top(audits, layout.size)
    evidence, tops = (shown, audits, prior), (1.02, 1.02, top)
    names = _static_traces(figure, num_classes, evidence, top, layout.size)
    panel = _AuditsPanel(_audit_curve(audits, names), frozenset(n.epsilon for n in names))
    figure.update_yaxes(range=[0, 1.02], tickformat=".0%", row=1, col=1)
    figure.update_yaxes(range=[0, 1.02], title="test accuracy", row=2, col=1)
    figure.update_yaxes(range=[0, top], title="ε proven", row=3, col=1)
    moving = len(figure.data)
    first = _frame(epsilons[0], num_classes, evidence, tops, layout.size, panel)
    for trace, row in zip(first, (1, 2, 3, 1, 1, 2, 2, 3, 3), strict=True):
        figure.add_trace(trace.update(showlegend=False), row=row, col=1)
    indices = list(range(moving, len(figure.data)))
    figure.frames = [
        go.Frame(
            name=_frame_name(e),
            data=_frame(e, num_classes, evidence, tops, layout.size, panel),
            traces=indices,
        )
        for e in epsilons
    ]
    figure.update_layout(**_play_controls(epsilons, seconds))
    return figure
