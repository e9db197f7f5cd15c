"""Figures of the comparison page: every mechanism's score vs epsilon, privacy units marked.

Each point sits at the epsilon its accounting computed (``epsilon_spent``), under the mechanism's
own neighbouring relation, so no curve is drawn at an epsilon that was not computed: DPPL-Mean,
which calibrates its zCDP rho to the epsilon asked, is drawn at the (epsilon, delta) that rho
converts to. The lines are named at their ends, not in a legend (a projector's 800 px have no
room for one of eight entries); the hover and the table say which guarantees carry a delta.
"""

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.choosing.summary import (
    NEIGHBOURS,
    UNIT_ORDER,
    clean_baseline,
    summary_at,
    summary_rows,
)
from labeldp_core.engine.spec import RunResult
from labeldp_core.plots.scores import score_vs_epsilon
from labeldp_core.plots_base.colours import UNIT_DASH, mechanism_of
from labeldp_core.plots_base.common import LABEL_DP_AXIS_RANGE, LABEL_DP_RANGE
from labeldp_core.plots_base.end_labels import add_end_label
from labeldp_core.registry import MECHANISM_STYLES

__all__ = [
    "NEIGHBOURS",
    "UNIT_DASH",
    "UNIT_ORDER",
    "clean_baseline",
    "comparison_figure",
    "keep_to_label_dp_range",
    "short_name",
    "summary_at",
    "summary_rows",
]

#: The line of the model trained on the true labels, as on every page's chart.
CLEAN_COLOUR = "green"


def _guarantee(results: Sequence[RunResult]) -> str:
    """What kind of epsilon a series has: pure, with a delta, or converted from zCDP."""
    delta = max((r.delta for r in results), default=0.0)
    kind = f"(ε, δ={delta:g})" if delta else "pure ε"
    if any("rho" in r.details for r in results):
        return f"ρ-zCDP as {kind}"
    return kind


def short_name(name: str) -> str:
    """A mechanism's name as its line's label: its title without the words in brackets.

    >>> short_name("LP-2ST (two-stage RR with prior)"), short_name("DP-SGD baseline")
    ('LP-2ST', 'DP-SGD')
    """
    return name.split(" (")[0].removesuffix(" baseline")


def comparison_figure(
    results: Mapping[str, Sequence[RunResult]],
    units: Mapping[str, str],
    baseline: float | None,
    metric: str,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean score vs the epsilon each mechanism spent (band over seeds), dashed for example DP.

    Args:
        results: results by mechanism name (its title).
        units: privacy unit by mechanism name ("label", "example" or "output").
        baseline: the clean-label score of the common model, drawn as a line.
        metric: "test accuracy" or "test MSE".
        marked_epsilon: the epsilon chosen on the page.

    No legend: each line is named at its last point, in its colour (:func:`short_name`), so
    eight mechanisms take no height below the plot; the line's dash gives its privacy unit.
    Each line's full name, which the hover and the CSV give, reads "name [unit; guarantee]",
    e.g. "DP-SGD [example; (ε, δ=1e-05)]"; the hover gives the epsilon spent and the one asked.
    """
    named = {f"{name} [{units[name]}; {_guarantee(rows)}]": rows for name, rows in results.items()}
    shorts = {label: short_name(name) for label, name in zip(named, results, strict=True)}
    mechanisms = {
        label: mechanism
        for label, (name, rows) in zip(named, results.items(), strict=True)
        if (mechanism := mechanism_of(name, rows, MECHANISM_STYLES)) is not None
    }
    figure = score_vs_epsilon(
        named, metric=metric, marked_epsilon=marked_epsilon, at_spent=True, mechanisms=mechanisms
    )
    if metric == "test MSE":
        figure.update_yaxes(type="log")
    if any(rows for rows in results.values()):
        keep_to_label_dp_range(figure)
    if baseline is not None:
        figure.add_hline(y=baseline, line_dash="dash", line_color=CLEAN_COLOUR)
    _fit_y_range(figure, baseline)
    figure.update_layout(showlegend=False)
    for trace in [t for t in figure.data if t.mode == "lines+markers"]:
        last = int(np.argmax(trace.x))
        add_end_label(figure, trace.x[last], trace.y[last], shorts[trace.name], trace.line.color)
    if baseline is not None:
        high = 10 ** LABEL_DP_AXIS_RANGE[1]
        add_end_label(figure, high, baseline, f"clean labels: {baseline:.3g}", CLEAN_COLOUR)
    return figure


def _fit_y_range(figure: go.Figure, baseline: float | None) -> None:
    """Set the y range to every value drawn, with a margin (the end labels are placed on it)."""
    values = [float(y) for t in figure.data if t.y is not None for y in t.y]
    if not values:  # nothing computed yet: the range score_vs_epsilon gave
        return
    values += [] if baseline is None else [baseline]
    log = figure.layout.yaxis.type == "log"
    if log:
        values = [float(np.log10(v)) for v in values if v > 0]
    low, high = min(values), max(values)
    pad = 0.06 * (high - low) or 0.05
    figure.update_yaxes(range=[low - pad, high + pad])


def keep_to_label_dp_range(figure: go.Figure) -> None:
    """Span the x axis over the label-DP grid; mark points beyond it at the edge, not drop them.

    A mechanism whose epsilons lie far outside (the DP prototypes' 0.01) would otherwise
    squeeze every other curve into a corner. Each point off the axis gets an open triangle at
    the edge, in its line's colour, pointing the way it lies; its hover gives its epsilon.
    """
    low, high = LABEL_DP_RANGE
    lines = [t for t in figure.data if t.mode == "lines+markers" and t.x is not None]
    for trace in lines:
        xs, ys = np.asarray(trace.x, float), np.asarray(trace.y, float)
        for edge, symbol, outside in (
            (low, "triangle-left-open", np.less),
            (high, "triangle-right-open", np.greater),
        ):
            off = outside(xs, edge)
            if not off.any():
                continue
            figure.add_scatter(
                x=[edge] * int(off.sum()),
                y=ys[off],
                mode="markers",
                showlegend=False,
                marker={"symbol": symbol, "size": 13, "color": trace.line.color},
                name=f"{trace.name} (off the axis)",
                customdata=xs[off],
                hovertemplate="ε spent %{customdata:.3g}, off the axis: %{y:.3f}<extra></extra>",
            )
    figure.update_xaxes(range=LABEL_DP_AXIS_RANGE)
