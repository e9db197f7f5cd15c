"""Figures of the 'Your data' page: how often each value of the chosen label appears."""

from collections.abc import Sequence

import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, on_white

__all__ = ["label_histogram"]


def label_histogram(values: Sequence[str], counts: Sequence[int], label: str) -> go.Figure:
    """One bar per value of the label column: the classes a mechanism will protect."""
    figure = on_white(go.Figure(layout=LAYOUT))
    figure.add_bar(
        x=list(values), y=list(counts), name=label, hovertemplate="%{x}: %{y:,} rows<extra></extra>"
    )
    figure.update_layout(
        title=f"Rows per value of the label '{label}'",
        xaxis_title=label,
        yaxis_title="rows",
        showlegend=False,
    )
    figure.update_xaxes(type="category")
    return figure
