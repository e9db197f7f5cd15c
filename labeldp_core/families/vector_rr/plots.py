"""Figures of the vector randomized response page: per-bit flips and the learned signal."""

import numpy as np
import plotly.graph_objects as go

from labeldp_core.families.vector_rr.release import bit_flip_probability, crossover_classes
from labeldp_core.noise.randomized_response import keep_probability
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, mark_epsilon, mark_level, on_white

__all__ = ["bit_flip_curve", "bit_signal_lines", "crossover_figure"]


def bit_flip_curve(
    num_classes: int,
    epsilon: float,
    measured_bit_flip_rate: float | None = None,
    epsilon_range: tuple[float, float] = (0.05, 20.0),
) -> go.Figure:
    """Each bit's flip probability 1/(1+e^(ε/2)) vs ε, beside K-ary RR's label flip probability.

    The per-bit flip does not depend on K; RR's (K-1)/(e^ε+K-1) grows with K. The measured bit
    flip rate of a run, if given, is drawn as a point over the closed form.
    """
    grid = np.geomspace(*epsilon_range, 200)
    bit = np.array([bit_flip_probability(e) for e in grid])
    label = np.array([1 - keep_probability(e, num_classes) for e in grid])
    figure = go.Figure()
    figure.add_scatter(x=grid, y=bit, name="vector RR: each bit, 1/(1+e^(ε/2))", mode="lines")
    figure.add_scatter(
        x=grid,
        y=label,
        name=f"RR: the label, (K-1)/(e^ε+K-1), K = {num_classes}",
        mode="lines",
        line={"dash": "dot"},
    )
    mark_level(figure, 0.5, "1/2: a coin")
    mark_epsilon(figure, epsilon)
    if measured_bit_flip_rate is not None:
        figure.add_scatter(
            x=[epsilon],
            y=[measured_bit_flip_rate],
            mode="markers",
            name="measured bit flip rate",
            marker={"size": 12, "symbol": "x", "color": "black"},
        )
    on_white(figure).update_layout(
        title=f"Flip probability per bit (vector RR) and per label (RR, K = {num_classes})",
        xaxis=EPSILON_AXIS,
        yaxis={"title": "flip probability", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def bit_signal_lines(num_classes: int, epsilon: float) -> go.Figure:
    """What a model learns for class k, against the true P(y = k | x), at one ε.

    Vector RR: E[b_k | x] = q + (p - q) P(y = k | x), slope p - q = tanh(ε/4) whatever K. RR:
    P(released = k | x) = o + (keep - o) P(y = k | x), with o = (1 - keep)/(K - 1). Both are
    affine and increasing, so both argmaxes are the true one; the slope is the signal that
    survives the noise.
    """
    eta = np.linspace(0.0, 1.0, 2)
    flip = bit_flip_probability(epsilon)
    keep = keep_probability(epsilon, num_classes)
    other = (1 - keep) / (num_classes - 1)
    figure = go.Figure()
    figure.add_scatter(
        x=eta,
        y=flip + (1 - 2 * flip) * eta,
        mode="lines",
        name=f"vector RR: E[b_k] = q + (p − q)·P, slope {1 - 2 * flip:.3f}",
    )
    figure.add_scatter(
        x=eta,
        y=other + (keep - other) * eta,
        mode="lines",
        line={"dash": "dot"},
        name=f"RR: P(released = k), slope {keep - other:.3f}",
    )
    on_white(figure).update_layout(
        title=f"What the model learns for class k at ε = {epsilon:g} (K = {num_classes})",
        xaxis={"title": "P(y = k | x), the true class probability", "range": [0, 1]},
        yaxis={"title": "the target's mean", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def crossover_figure(
    num_classes: int, epsilon: float, epsilon_range: tuple[float, float] = (0.05, 20.0)
) -> go.Figure:
    """Where vector RR beats RR: above the curve K = e^(3ε/2) + e^ε + e^(ε/2) + 2.

    Above it, vector RR's per-label estimate of a class's share has the smaller variance (see
    :func:`~labeldp_core.families.vector_rr.release.estimate_variances`); below it, RR's. The
    page's (ε, K) is marked.
    """
    grid = np.geomspace(*epsilon_range, 200)
    top = 10 ** max(4.0, np.log10(num_classes) + 1)
    border = np.minimum([crossover_classes(e) for e in grid], top)
    figure = go.Figure()
    figure.add_scatter(x=grid, y=border, mode="lines", name="equal variance", showlegend=False)
    figure.add_scatter(
        x=grid,
        y=np.full(grid.size, top),
        mode="lines",
        line={"width": 0},
        fill="tonexty",
        name="vector RR wins (more classes, smaller ε)",
    )
    figure.add_scatter(
        x=[epsilon],
        y=[num_classes],
        mode="markers",
        name=f"this page: ε = {epsilon:g}, K = {num_classes}",
        marker={"size": 12, "symbol": "x", "color": "black"},
    )
    on_white(figure).update_layout(
        title="Where vector RR beats RR: K > e^(3ε/2) + e^ε + e^(ε/2) + 2",
        xaxis=EPSILON_AXIS,
        yaxis={
            "title": "number of classes K (log scale)",
            "type": "log",
            "range": [0, np.log10(top)],
        },
        **LAYOUT,
    )
    return figure
