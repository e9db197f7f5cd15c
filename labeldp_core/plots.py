"""Pure plotting functions: data in, a ``plotly.graph_objects.Figure`` out (no Streamlit).

Every figure says on its axes what it shows, so a screenshot can be read without the page.
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.experiments.spec import RunResult
from labeldp_core.mechanisms import keep_probability

__all__ = [
    "EPSILON_AXIS",
    "keep_flip_curve",
    "label_heatmap",
    "score_vs_epsilon",
]

EPSILON_AXIS = {"type": "log", "title": "epsilon (log scale)"}
_LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 50, "b": 50}}


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
    figure.add_hline(
        y=1 / num_classes, line_dash="dot", line_color="grey",
        annotation_text=f"1/K = {1 / num_classes:.2f} (a random guess)",
    )  # fmt: skip
    figure.add_vline(x=epsilon, line_dash="dash", annotation_text=f"ε = {epsilon:g}")
    if measured_flip_rate is not None:
        figure.add_scatter(
            x=[epsilon], y=[measured_flip_rate], mode="markers", name="measured flip rate",
            marker={"size": 12, "symbol": "x", "color": "black"},
        )  # fmt: skip
    figure.update_layout(
        title=f"Randomized response with K = {num_classes}: keep and flip probability",
        xaxis=EPSILON_AXIS, yaxis={"title": "probability", "range": [0, 1]}, **_LAYOUT,
    )  # fmt: skip
    return figure


def label_heatmap(confusion: Sequence[Sequence[int]], class_names: Sequence[str]) -> go.Figure:
    """Counts of (true, released) label pairs; each row also shown as a share of its true label."""
    counts = np.asarray(confusion, dtype=float)
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    names = list(class_names)
    figure = go.Figure(
        go.Heatmap(
            z=shares, x=names, y=names, colorscale="Blues", zmin=0, zmax=1,
            customdata=counts, colorbar={"title": "share of row"},
            hovertemplate="true %{y} -> released %{x}: %{customdata:.0f} labels "
            "(%{z:.1%} of true %{y})<extra></extra>",
        )
    )  # fmt: skip
    figure.update_layout(
        title="True vs released training labels",
        xaxis={"title": "released label", "type": "category"},
        yaxis={"title": "true label", "type": "category", "autorange": "reversed"},
        **_LAYOUT,
    )
    return figure


def score_vs_epsilon(
    series: Mapping[str, Sequence[RunResult]],
    baseline: float | None = None,
    *,
    metric: str = "test accuracy",
    chance: float | None = None,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean test score vs epsilon per named series, with a min-max band over seeds.

    Args:
        series: results by legend name (for example by mechanism); several seeds per epsilon
            are averaged.
        baseline: the score of the same model trained on clean labels, drawn as a line.
        metric: the y-axis title ("test accuracy" or "test MSE").
        chance: the score of random guessing, drawn as a dotted line.
        marked_epsilon: the epsilon chosen on the page, drawn as a dashed line.
    """
    figure = go.Figure()
    for name, results in series.items():
        by_epsilon: dict[float, list[float]] = defaultdict(list)
        for result in results:
            by_epsilon[result.epsilon].append(result.score)
        if not by_epsilon:
            continue
        epsilons = sorted(by_epsilon)
        scores = [np.asarray(by_epsilon[e]) for e in epsilons]
        means = [float(s.mean()) for s in scores]
        seeds = [len(s) for s in scores]
        if max(seeds) > 1:
            figure.add_scatter(
                x=epsilons + epsilons[::-1],
                y=[float(s.max()) for s in scores] + [float(s.min()) for s in scores][::-1],
                fill="toself", opacity=0.2, line={"width": 0}, showlegend=False,
                hoverinfo="skip", name=f"{name} range over seeds",
            )  # fmt: skip
        figure.add_scatter(
            x=epsilons, y=means, mode="lines+markers", name=name, customdata=seeds,
            hovertemplate="ε=%{x:g}: %{y:.3f} (mean of %{customdata} seeds)",
        )  # fmt: skip
    if baseline is not None:
        figure.add_hline(
            y=baseline, line_dash="dash", line_color="green",
            annotation_text=f"clean labels: {baseline:.3f}",
        )  # fmt: skip
    if chance is not None:
        figure.add_hline(
            y=chance, line_dash="dot", line_color="grey", annotation_text=f"chance: {chance:.2f}"
        )
    if marked_epsilon is not None:
        figure.add_vline(x=marked_epsilon, line_dash="dash", line_color="grey")
    figure.update_layout(
        title=f"{metric.capitalize()} vs epsilon", xaxis=EPSILON_AXIS,
        yaxis={"title": metric}, **_LAYOUT,
    )  # fmt: skip
    return figure
