"""Figures and layout shared by several pages."""

import functools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labeldp_core.accounting.units import EXAMPLE_TO_LABEL
from labeldp_core.engine.spec import RunResult
from labeldp_core.plots_base.bars_across import laid_across
from labeldp_core.plots_base.colours import MechanismStyle, band_colour, series_styles
from labeldp_core.plots_base.legend_names import series_name

__all__ = [
    "EPSILON_AXIS",
    "LABEL_DP_AXIS_RANGE",
    "LABEL_DP_RANGE",
    "LAYOUT",
    "UNIT_SCALE_NOTE",
    "figure_table",
    "mark_bound",
    "mark_chance",
    "mark_epsilon",
    "mark_epsilon_level",
    "mark_level",
    "on_white",
    "score_curves",
    "seeds_band",
]

EPSILON_AXIS = {"type": "log", "title": "epsilon (log scale)"}
#: The epsilons of the label-DP demo grid, with a margin: the default span of an epsilon axis.
LABEL_DP_RANGE = (0.05, 20.0)
#: The same span as Plotly's log-axis range (log10 of each end).
LABEL_DP_AXIS_RANGE = [float(np.log10(end)) for end in LABEL_DP_RANGE]
#: The margins every chart starts from; its template is set by :func:`on_white`, which a figure
#: takes before ``update_layout(**LAYOUT, ...)``.
LAYOUT = {"margin": {"l": 60, "r": 20, "t": 50, "b": 50}}
#: Plotly's template every chart is drawn on.
TEMPLATE = "plotly_white"
#: Why an example-level epsilon and a label-level epsilon are not on one scale (for the pages).
UNIT_SCALE_NOTE = (
    "Example-level DP (add/remove one training example) hides the image as well as the label, "
    "but its ε is not on the same scale as label DP's (replace-one label). "
    + EXAMPLE_TO_LABEL
    + " At the same ε neither promise is simply the stronger one."
)


def on_white(figure: go.Figure) -> go.Figure:
    """``figure`` on Plotly's :data:`TEMPLATE`, the same as ``update_layout(template=TEMPLATE)``.

    That call validates a new deep copy of the whole registered template for every figure,
    about half the time of building a chart (issue 52: thousands of charts in the tests). Here
    the copy is validated once per process (:func:`_validated_template`) and set unvalidated,
    as Plotly sets a new figure's default template (``BaseFigure._initialize_layout_template``):
    the figure's JSON is the same, byte for byte. Returns ``figure``.
    """
    layout = figure.layout
    validate = layout._validate
    layout._validate = False
    try:
        layout.template = _validated_template(TEMPLATE)
    finally:
        layout._validate = validate
    return figure


@functools.cache
def _validated_template(name: str) -> go.layout.Template:
    """The registered template ``name`` as ``update_layout(template=name)`` sets it: validated."""
    return go.Layout(template=name).template


def mark_level(
    figure: go.Figure,
    level: float,
    text: str,
    dash: str = "dot",
    colour: str = "grey",
    **options: Any,
) -> None:
    """A horizontal line at ``level`` named by ``text`` (a reference the curves are read against).

    ``options`` go to plotly's ``add_hline`` (a subplot's ``row`` and ``col``, the name's
    ``annotation_position``).
    """
    figure.add_hline(y=level, line_dash=dash, line_color=colour, annotation_text=text, **options)


def mark_chance(figure: go.Figure, chance: float) -> None:
    """A dotted grey level at ``chance``, the score of guessing without the data, so named."""
    mark_level(figure, chance, f"chance: {chance:.2f}")


def mark_epsilon(figure: go.Figure, epsilon: float, label: str | None = None) -> None:
    """A dashed vertical line at ``epsilon`` on a log epsilon axis, labelled at the top.

    Plotly places annotations on a log axis by log10 of the position (lines by the value), so the
    label is added on its own rather than through ``add_vline(annotation_text=...)``.
    """
    figure.add_vline(x=epsilon, line_dash="dash", line_color="grey")
    figure.add_annotation(
        x=float(np.log10(epsilon)),
        y=1,
        yref="paper",
        yanchor="bottom",
        showarrow=False,
        text=label or f"ε = {epsilon:g}",
    )


def mark_bound(figure: go.Figure, bound: float, label: str) -> None:
    """A dashed black line at the share ``bound`` (a guessing bound), labelled at the right."""
    figure.add_hline(y=bound, line_dash="dash", line_color="black")
    figure.add_annotation(
        x=1,
        xref="paper",
        xanchor="right",
        y=bound,
        yanchor="bottom",
        showarrow=False,
        text=label,
    )


def mark_epsilon_level(figure: go.Figure, epsilon: float, label: str) -> None:
    """A dashed horizontal line at ``epsilon`` on a log epsilon y axis, labelled at the left.

    The horizontal twin of :func:`mark_epsilon`, for the same reason placed on its own.
    """
    figure.add_hline(y=epsilon, line_dash="dash", line_color="grey")
    figure.add_annotation(
        x=0,
        xref="paper",
        xanchor="left",
        y=float(np.log10(epsilon)),
        yref="y",
        yanchor="bottom",
        showarrow=False,
        text=label,
    )


def seeds_band(
    figure: go.Figure,
    name: str,
    xs: Sequence[float],
    spread: tuple[Sequence[float], Sequence[float]],
    colour: str,
) -> None:
    """A translucent band over ``spread`` (lowest, highest per x) around series ``name``'s line."""
    low, high = spread
    figure.add_scatter(
        x=[*xs, *xs[::-1]],
        y=[*high, *low[::-1]],
        mode="lines",
        fill="toself",
        fillcolor=band_colour(colour),
        line={"width": 0},
        showlegend=False,
        hoverinfo="skip",
        name=f"{name} range over seeds",
    )


def _points(results: Sequence[RunResult], at_spent: bool) -> list[tuple[float, float, np.ndarray]]:
    """(x, epsilon asked, scores over seeds) per epsilon asked, in the order of epsilon asked.

    x is the epsilon asked, or with ``at_spent`` the largest epsilon spent over the seeds.
    """
    groups: dict[float, list[RunResult]] = defaultdict(list)
    for result in results:
        groups[result.epsilon].append(result)
    return [
        (
            max(r.epsilon_spent for r in group) if at_spent else asked,
            asked,
            np.array([r.score for r in group]),
        )
        for asked, group in sorted(groups.items())
    ]


def score_curves(
    series: Mapping[str, Sequence[RunResult]],
    table: Mapping[str, MechanismStyle],
    baseline: float | None = None,
    *,
    metric: str = "test accuracy",
    chance: float | None = None,
    marked_epsilon: float | None = None,
    at_spent: bool = False,
    mechanisms: Mapping[str, str] | None = None,
) -> go.Figure:
    """Mean test score vs epsilon per named series, with a min-max band over seeds.

    The figure of :func:`labeldp_core.plots.score_vs_epsilon`, which hands it every registered
    mechanism's style; a family's own figure hands its family's.

    Args:
        series: results by legend name (for example by mechanism); several seeds per epsilon
            are averaged.
        table: the style of each mechanism a series may show, by id
            (:func:`~labeldp_core.plots_base.colours.series_styles`).
        baseline: the score of the same model trained on clean labels, drawn as a line.
        metric: the y-axis title ("test accuracy" or "test MSE").
        chance: the score of random guessing, drawn as a dotted line.
        marked_epsilon: the epsilon chosen on the page, drawn as a dashed line.
        at_spent: put each point at the epsilon its accounting computed (the largest over its
            seeds) instead of the epsilon asked for; the hover shows both.
        mechanisms: the mechanism id by series name, where the name does not say it; a series'
            colour and dash come from its mechanism.
    """
    figure = go.Figure()
    styles = series_styles(series, table, mechanisms)
    for name, results in series.items():
        points = _points(results, at_spent)
        if not points:
            continue
        xs = [x for x, _, _ in points]
        scores = [s for _, _, s in points]
        colour, dash = styles[name]
        if max(len(s) for s in scores) > 1:
            seeds_band(
                figure,
                name,
                xs,
                ([float(s.min()) for s in scores], [float(s.max()) for s in scores]),
                colour,
            )
        where = "ε spent %{x:.3g} (asked %{customdata[1]:g})" if at_spent else "ε=%{x:g}"
        figure.add_scatter(
            x=xs,
            y=[float(s.mean()) for s in scores],
            mode="lines+markers",
            name=name,
            line={"color": colour, "dash": dash},
            marker={"color": colour},
            customdata=[[len(s), asked] for _, asked, s in points],
            hovertemplate=where + ": %{y:.3f} (mean of %{customdata[0]} seeds)",
        )
    if baseline is not None:
        mark_level(figure, baseline, f"clean labels: {baseline:.3f}", "dash", "green")
    if chance is not None:
        mark_chance(figure, chance)
    if marked_epsilon is not None:
        mark_epsilon(figure, marked_epsilon)
    axis = EPSILON_AXIS | {"title": "epsilon spent (log scale)"} if at_spent else EPSILON_AXIS
    y_axis: dict[str, Any] = {"title": metric}
    if not any(results for results in series.values()):  # nothing computed yet: the demo grid
        axis = axis | {"range": LABEL_DP_AXIS_RANGE}
        y_axis |= {"range": [0, 1]} if metric == "test accuracy" else {}
    on_white(figure).update_layout(
        title=f"{metric[:1].upper()}{metric[1:]} vs epsilon",  # "Test MSE", not "Test mse"
        xaxis=axis,
        yaxis=y_axis,
        **LAYOUT,
    )
    return figure


def figure_table(figure: go.Figure) -> list[dict[str, Any]]:
    """The numbers a figure draws, one row per point: series, x, y (and value for heatmaps).

    What a reader downloads to redo the chart elsewhere; traces without data are skipped.
    """
    rows: list[dict[str, Any]] = []
    for index, trace in enumerate(figure.data):
        series = series_name(trace) or f"{trace.type} {index + 1}"
        if trace.type == "heatmap":
            values = np.asarray(trace.z)
            xs = list(trace.x) if trace.x is not None else list(range(values.shape[1]))
            ys = list(trace.y) if trace.y is not None else list(range(values.shape[0]))
            rows += [
                {"series": series, "x": x, "y": y, "value": values[i][j]}
                for i, y in enumerate(ys)
                for j, x in enumerate(xs)
            ]
            continue
        xs = getattr(trace, "x", None)
        ys = getattr(trace, "y", None)
        if laid_across(trace):
            xs, ys = ys, xs  # on a narrow chart, a group's bars across: the value stays in y
        if xs is None and ys is None:
            continue
        if ys is None:
            rows += [{"series": series, "x": x} for x in xs]
        elif xs is None:
            rows += [{"series": series, "y": y} for y in ys]
        else:
            rows += [{"series": series, "x": x, "y": y} for x, y in zip(xs, ys, strict=False)]
    return rows
