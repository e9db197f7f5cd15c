"""Figures of the LabelDP-Pro page."""

from collections.abc import Sequence

import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, mark_level, on_white

__all__ = ["accuracy_by_epoch"]


def accuracy_by_epoch(
    test_curve: Sequence[float], epsilon: float, baseline: float | None = None
) -> go.Figure:
    """Test accuracy of a LabelDP-Pro run after every epoch, the clean model's as a line."""
    epochs = list(range(1, len(test_curve) + 1))
    figure = go.Figure()
    figure.add_scatter(
        x=epochs,
        y=list(test_curve),
        mode="lines+markers",
        name=f"LabelDP-Pro at label ε = {epsilon:g}",
        hovertemplate="after %{x} epochs: accuracy %{y:.3f}<extra></extra>",
    )
    if baseline is not None:
        mark_level(figure, baseline, f"non-private model: {baseline:.3f}")
    on_white(figure).update_layout(
        title=f"LabelDP-Pro: test accuracy while training (label ε = {epsilon:g})",
        xaxis={"title": "epochs"},
        yaxis={"title": "test accuracy", "range": [0, 1]},
        **LAYOUT,
    )
    return figure
