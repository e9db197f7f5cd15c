"""Figures of the randomized response page."""

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.noise.randomized_response import keep_probability
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, mark_epsilon, mark_level, on_white

__all__ = ["keep_flip_curve", "label_heatmap"]


def keep_flip_curve(
    num_classes: int,
    epsilon: float,
    measured_flip_rate: float | None = None,
    epsilon_range: tuple[float, float] = (0.05, 20.0),
) -> go.Figure:
    """Keep and flip probability of K-ary RR vs epsilon, the chosen epsilon marked.

    The measured flip rate of a run, if given, is drawn as a point over the closed form.
    """
    grid = np.geomspace(*epsilon_range, 200)
    keep = np.array([keep_probability(e, num_classes) for e in grid])
    figure = go.Figure()
    figure.add_scatter(x=grid, y=keep, name="keep: e^ε/(e^ε+K-1)", mode="lines")
    figure.add_scatter(x=grid, y=1 - keep, name="flip: (K-1)/(e^ε+K-1)", mode="lines")
    chance = f"1/K = {1 / num_classes:.2f} (a random guess)"
    # under the line at small ε, where neither curve goes (at the right it crossed flip)
    mark_level(figure, 1 / num_classes, chance, annotation_position="bottom left")
    mark_epsilon(figure, epsilon)
    if measured_flip_rate is not None:
        figure.add_scatter(
            x=[epsilon],
            y=[measured_flip_rate],
            mode="markers",
            name="measured flip rate",
            marker={"size": 12, "symbol": "x", "color": "black"},
        )
    on_white(figure).update_layout(
        title=f"Randomized response with K = {num_classes}: keep and flip probability",
        xaxis=EPSILON_AXIS,
        yaxis={"title": "probability", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def label_heatmap(confusion: Sequence[Sequence[int]], class_names: Sequence[str]) -> go.Figure:
    """Counts of (true, released) label pairs; each row also shown as a share of its true label."""
    counts = np.asarray(confusion, dtype=float)
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    names = list(class_names)
    figure = go.Figure(
        go.Heatmap(
            z=shares,
            x=names,
            y=names,
            colorscale="Blues",
            zmin=0,
            zmax=1,
            customdata=counts,
            colorbar={"title": "share of row"},
            hovertemplate="true %{y} -> released %{x}: %{customdata:.0f} labels "
            "(%{z:.1%} of true %{y})<extra></extra>",
        )
    )
    on_white(figure).update_layout(
        title="True vs released training labels",
        xaxis={"title": "released label", "type": "category"},
        yaxis={"title": "true label", "type": "category", "autorange": "reversed"},
        **LAYOUT,
    )
    return figure
