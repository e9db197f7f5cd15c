"""Figures of the comparison page: every mechanism's score vs epsilon, privacy units marked.

Each point sits at the epsilon its accounting computed (``epsilon_spent``), under the mechanism's
own neighbouring relation, so no curve is drawn at an epsilon that was not computed: DPPL-Mean,
which calibrates its zCDP rho to the epsilon asked, is drawn at the (epsilon, delta) that rho
converts to. The legend and the table say which guarantees carry a delta.
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
from labeldp_core.plots.colours import UNIT_DASH, mechanism_of
from labeldp_core.plots.common import LABEL_DP_AXIS_RANGE, LABEL_DP_RANGE, score_vs_epsilon

__all__ = [
    "NEIGHBOURS",
    "UNIT_DASH",
    "UNIT_ORDER",
    "clean_baseline",
    "comparison_figure",
    "keep_to_label_dp_range",
    "summary_at",
    "summary_rows",
]


def _guarantee(results: Sequence[RunResult]) -> str:
    """What kind of epsilon a series has: pure, with a delta, or converted from zCDP."""
    delta = max((r.delta for r in results), default=0.0)
    kind = f"(ε, δ={delta:g})" if delta else "pure ε"
    if any("rho" in r.details for r in results):
        return f"ρ-zCDP as {kind}"
    return kind


def comparison_figure(
    results: Mapping[str, Sequence[RunResult]],
    units: Mapping[str, str],
    baseline: float | None,
    metric: str,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean score vs the epsilon each mechanism spent (band over seeds), dashed for example DP.

    Args:
        results: results by legend name.
        units: privacy unit by legend name ("label", "example" or "output").
        baseline: the clean-label score of the common model, drawn as a line.
        metric: "test accuracy" or "test MSE".
        marked_epsilon: the epsilon chosen on the page.

    Each legend entry reads "name [unit; guarantee]", e.g. "DP-SGD [example; (ε, δ=1e-05)]"; the
    hover gives the epsilon spent and the epsilon asked.
    """
    named = {f"{name} [{units[name]}; {_guarantee(rows)}]": rows for name, rows in results.items()}
    mechanisms = {
        label: mechanism
        for label, (name, rows) in zip(named, results.items(), strict=True)
        if (mechanism := mechanism_of(name, rows)) is not None
    }
    figure = score_vs_epsilon(
        named,
        baseline,
        metric=metric,
        marked_epsilon=marked_epsilon,
        at_spent=True,
        mechanisms=mechanisms,
    )
    if metric == "test MSE":
        figure.update_yaxes(type="log")
    figure.update_layout(legend_title_text="mechanism [privacy unit; guarantee]")
    if any(rows for rows in results.values()):
        keep_to_label_dp_range(figure)
    return figure


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
