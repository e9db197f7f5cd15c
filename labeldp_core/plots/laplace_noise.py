"""Figures of the Laplace noise page: the density for several epsilons, its tails, secure noise."""

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.noise.discrete_laplace import discrete_laplace_pmf
from labeldp_core.noise.laplace import laplace_density, laplace_scale, tail_probability
from labeldp_core.plots_base.common import LAYOUT, on_white

__all__ = ["discrete_laplace_figure", "laplace_density_figure", "tail_probability_figure"]

#: At most about this many bars in the secure-noise histogram; wider noise gets wider bins.
_MAX_BARS = 101


def laplace_density_figure(
    sensitivity: float,
    epsilon: float,
    other_epsilons: Sequence[float] = (),
    samples: np.ndarray | None = None,
) -> go.Figure:
    """Density of Lap(0, Δ/ε) for the chosen ε, others dotted, and a histogram of drawn noise.

    The x range covers the chosen density's central 99.9% (±b ln 1000).
    """
    scale = laplace_scale(sensitivity, epsilon)
    reach = scale * np.log(1000.0)
    grid = np.linspace(-reach, reach, 801)
    figure = go.Figure()
    if samples is not None:
        figure.add_histogram(
            x=samples,
            histnorm="probability density",
            name=f"{len(samples):,} draws",
            xbins={"start": -reach, "end": reach, "size": 2 * reach / 80},
            marker_color="lightsteelblue",
            opacity=0.8,
        )
    for other in other_epsilons:
        figure.add_scatter(
            x=grid,
            y=laplace_density(grid, laplace_scale(sensitivity, other)),
            mode="lines",
            line={"dash": "dot"},
            name=f"ε = {other:g} (b = {sensitivity / other:.3g})",
        )
    figure.add_scatter(
        x=grid,
        y=laplace_density(grid, scale),
        mode="lines",
        line={"width": 3, "color": "black"},
        name=f"ε = {epsilon:g} (b = {scale:.3g})",
    )
    on_white(figure).update_layout(
        title=f"Density of Lap(0, Δ/ε) with Δ = {sensitivity:g}",
        xaxis={"title": "noise value", "range": [-reach, reach]},
        yaxis={"title": "density"},
        barmode="overlay",
        **LAYOUT,
    )
    return figure


def tail_probability_figure(
    sensitivity: float, epsilon: float, threshold: float, other_epsilons: Sequence[float] = ()
) -> go.Figure:
    """P(|noise| > t) = e^(-tε/Δ) against t for each ε, the chosen (ε, t) marked."""
    scale = laplace_scale(sensitivity, epsilon)
    grid = np.linspace(0.0, max(scale * np.log(1000.0), 1.5 * threshold), 400)
    figure = go.Figure()
    for other in other_epsilons:
        figure.add_scatter(
            x=grid,
            y=tail_probability(grid, laplace_scale(sensitivity, other)),
            mode="lines",
            line={"dash": "dot"},
            name=f"ε = {other:g}",
        )
    figure.add_scatter(
        x=grid,
        y=tail_probability(grid, scale),
        mode="lines",
        line={"width": 3, "color": "black"},
        name=f"ε = {epsilon:g}",
    )
    chance = float(tail_probability(threshold, scale))
    figure.add_scatter(
        x=[threshold],
        y=[chance],
        mode="markers",
        marker={"size": 12, "color": "crimson"},
        name=f"P(|noise| > {threshold:g}) = {chance:.3g}",
    )
    on_white(figure).update_layout(
        title="Tail probability P(|noise| > t)",
        xaxis={"title": "noise magnitude t"},
        yaxis={"title": "probability", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def discrete_laplace_figure(scale: float, draws: np.ndarray) -> go.Figure:
    """Secure discrete Laplace draws (bars) against their exact pmf and the continuous density.

    Bars are the share of draws per integer (pooled into equal bins of whole integers when the
    noise spans more than about 100 of them, divided by the bin width); the markers are the
    exact pmf e^(-|y|/b) (1 - e^(-1/b)) / (1 + e^(-1/b)), drawn when every integer has its bar.
    The x range covers the central 99.9% (±b ln 1000, at least ±3).
    """
    draws = np.asarray(draws)
    reach = max(3, math.ceil(scale * math.log(1000.0)))
    width = max(1, math.ceil((2 * reach + 1) / _MAX_BARS))
    edges = np.arange(-reach - 0.5, reach + 0.5 + width, width)
    counts, _ = np.histogram(draws, edges)
    centres = (edges[:-1] + edges[1:]) / 2
    figure = go.Figure()
    figure.add_bar(
        x=centres,
        y=counts / max(draws.size, 1) / width,
        width=0.9 * width,
        name=f"{draws.size:,} secure draws",
        marker_color="lightsteelblue",
    )
    if width == 1:
        integers = np.arange(-reach, reach + 1)
        figure.add_scatter(
            x=integers,
            y=discrete_laplace_pmf(integers, 1.0 / scale),
            mode="markers",
            marker={"color": "crimson", "size": 7},
            name="exact discrete pmf",
        )
    grid = np.linspace(-reach, reach, 801)
    figure.add_scatter(
        x=grid,
        y=laplace_density(grid, scale),
        mode="lines",
        line={"width": 2, "color": "black", "dash": "dot"},
        name="continuous Laplace density",
    )
    on_white(figure).update_layout(
        title=f"Secure discrete Laplace noise, scale b = {scale:.4g}",
        xaxis={"title": "noise value (an integer)", "range": [-reach - 0.5, reach + 0.5]},
        yaxis={"title": "probability per integer"},
        bargap=0,
        **LAYOUT,
    )
    return figure
