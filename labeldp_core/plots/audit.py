"""The privacy audit's figure: each case's claimed epsilon next to the lower bound it proved."""

from collections.abc import Sequence

import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, on_white
from labeldp_core.plots_base.readable import wrap
from labeldp_core.release_audit.engine import AuditResult

__all__ = ["audit_figure"]

_CONSISTENT = "#2a9d8f"
_VIOLATES = "#d62828"
#: Characters per line of a case's name beside its row: a phone's chart keeps room for the bars.
_NAME_WIDTH = 18


def audit_figure(results: Sequence[AuditResult], ceiling: float | None = None) -> go.Figure:
    """Claimed epsilon (bars) and the audit's lower bound (diamonds), one row per case.

    Args:
        results: audit results, for example a mechanism's cases followed by its control.
        ceiling: the largest bound the number of trials can prove, drawn as a dotted line
            when it is within reach of the values shown (else it would only squash them).

    Returns:
        A horizontal figure; a diamond right of its bar (red) proves more leakage than claimed.
    """
    names = [
        f"{r.name} (control)" if r.is_control and "control" not in r.name else r.name
        for r in results
    ]
    figure = go.Figure()
    figure.add_bar(
        y=names,
        x=[r.claimed_epsilon for r in results],
        orientation="h",
        name="claimed ε",
        marker_color="lightgrey",
        customdata=[r.claimed_delta for r in results],
        hovertemplate="%{y}<br>claimed ε = %{x:.4g}, δ = %{customdata:g}<extra></extra>",
    )
    figure.add_scatter(
        y=names,
        x=[r.epsilon_lower_bound for r in results],
        mode="markers",
        name="lower bound (audit)",
        marker={
            "symbol": "diamond",
            "size": 14,
            "color": [_VIOLATES if r.violates else _CONSISTENT for r in results],
            "line": {"width": 1, "color": "black"},
        },
        customdata=[
            [100 * r.confidence, r.trials, "violates" if r.violates else "consistent"]
            for r in results
        ],
        hovertemplate="%{y}<br>lower bound %{x:.4f} at %{customdata[0]:g}% confidence, "
        "%{customdata[1]:,} trials per neighbour: %{customdata[2]}<extra></extra>",
    )
    largest = max((max(r.claimed_epsilon, r.epsilon_lower_bound) for r in results), default=0)
    if ceiling is not None and ceiling <= 1.5 * largest:
        figure.add_vline(
            x=ceiling,
            line_dash="dot",
            line_color="grey",
            annotation_text=f"most these trials can prove: {ceiling:.3g}",
            annotation_position="top left",
        )
    on_white(figure).update_layout(
        **LAYOUT,
        title="Claimed ε vs the audit's lower bound",
        xaxis_title="epsilon (red diamond beyond its bar: the claim is refuted)",
        yaxis={
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": names,
            "ticktext": [wrap(name, _NAME_WIDTH) for name in names],
        },
        height=140 + 70 * len(results),
        legend={"orientation": "h", "y": -0.25},
        bargap=0.45,
    )
    return figure
