"""Figures of the RR-with-prior page: the prior's quality and the chosen set sizes.

Its flip rates beside plain RR's, another family's, are
:func:`labeldp_core.plots.flip_rate_comparison`.
"""

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, on_white

__all__ = ["prior_mass_histogram", "set_size_histogram"]


def prior_mass_histogram(counts: Sequence[int], edges: Sequence[float]) -> go.Figure:
    """How much prior mass the true label gets: share of training examples per bin of [0, 1]."""
    counts = np.asarray(counts, dtype=float)
    edges = np.asarray(edges, dtype=float)
    shares = counts / max(counts.sum(), 1.0)
    figure = go.Figure(
        go.Bar(
            x=(edges[:-1] + edges[1:]) / 2,
            y=shares,
            width=np.diff(edges),
            customdata=counts,
            hovertemplate="prior mass %{x:.2f}: %{y:.1%} of examples (%{customdata:.0f})"
            "<extra></extra>",
        )
    )
    on_white(figure).update_layout(
        title="Prior mass on the true label",
        xaxis={"title": "prior probability of the true label", "range": [0, 1]},
        yaxis={"title": "share of training examples", "tickformat": ".0%"},
        **LAYOUT,
    )
    return figure


def set_size_histogram(counts: Sequence[int]) -> go.Figure:
    """How many examples got each set size k* = 1..K (the number of labels RR chooses among)."""
    counts = np.asarray(counts, dtype=float)
    sizes = np.arange(1, len(counts) + 1)
    figure = go.Figure(
        go.Bar(
            x=sizes,
            y=counts / max(counts.sum(), 1.0),
            customdata=counts,
            hovertemplate="k* = %{x}: %{y:.1%} of examples (%{customdata:.0f})<extra></extra>",
        )
    )
    on_white(figure).update_layout(
        title="Chosen set size k*",
        xaxis={"title": "k* (labels kept in the set; K means plain RR)", "dtick": 1},
        yaxis={"title": "share of training examples", "tickformat": ".0%"},
        **LAYOUT,
    )
    return figure
