"""The label-inference attacker's gain against its bound across ε (Wu et al., AISTATS 2023)."""

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.model_audit.inference import InferencePoint
from labeldp_core.plots_base.colours import series_styles
from labeldp_core.plots_base.common import (
    EPSILON_AXIS,
    LABEL_DP_RANGE,
    LAYOUT,
    mark_epsilon,
    on_white,
    seeds_band,
)
from labeldp_core.registry import MECHANISM_STYLES

__all__ = ["inference_gain_figure"]


def _bound_curve(figure: go.Figure, low: float, high: float) -> None:
    """The bound 1 − e^−ε over [low, high], dashed black."""
    grid = np.geomspace(low, high, 120)
    figure.add_scatter(
        x=grid,
        y=1.0 - np.exp(-grid),
        mode="lines",
        line={"color": "black", "dash": "dash"},
        name="bound for ε-label-DP: 1 − e^−ε",
        hovertemplate="ε=%{x:.3g}: the gain is at most %{y:.3f}",
    )


def _series(
    figure: go.Figure, name: str, points: Sequence[InferencePoint], style: tuple[str, str]
) -> None:
    """One mechanism's mean gain with its seeds' range as a band."""
    colour, dash = style
    xs = [p.epsilon for p in points]
    if max(p.seeds for p in points) > 1:
        seeds_band(
            figure, name, xs, ([p.gain_low for p in points], [p.gain_high for p in points]), colour
        )
    figure.add_scatter(
        x=xs,
        y=[p.gain for p in points],
        mode="lines+markers",
        name=name,
        line={"color": colour, "dash": dash},
        marker={"color": colour},
        customdata=[[p.seeds, p.bound] for p in points],
        hovertemplate="ε=%{x:g}: gain %{y:.3f} (mean of %{customdata[0]} seeds; "
        "bound %{customdata[1]:.3f})",
    )


def inference_gain_figure(
    points: Sequence[InferencePoint], epsilon: float, titles: Mapping[str, str] | None = None
) -> go.Figure:
    """Each mechanism's label-inference gain vs ε (mean, seeds' range) under 1 − e^−ε.

    The gain is the released model's accuracy on its own training labels minus a clean model's
    accuracy on held-out data (what the features alone give); ε-label-DP caps it at 1 − e^−ε.

    Args:
        points: the measured points (:func:`~labeldp_core.model_audit.inference.inference_points`).
        epsilon: the ε chosen on the page, marked.
        titles: a legend name per mechanism id (the id itself where absent).
    """
    by_name: dict[str, list[InferencePoint]] = defaultdict(list)
    for point in sorted(points, key=lambda p: p.epsilon):
        by_name[(titles or {}).get(point.mechanism, point.mechanism)].append(point)
    mechanisms = {name: found[0].mechanism for name, found in by_name.items()}
    styles = series_styles({name: [] for name in by_name}, MECHANISM_STYLES, mechanisms)
    figure = go.Figure()
    epsilons = [p.epsilon for p in points] or list(LABEL_DP_RANGE)
    _bound_curve(figure, min(*epsilons, LABEL_DP_RANGE[0]), max(*epsilons, LABEL_DP_RANGE[1]))
    for name, found in by_name.items():
        _series(figure, name, found, styles[name])
    mark_epsilon(figure, epsilon)
    on_white(figure).update_layout(
        title="What the trained model gives away about its training labels",
        xaxis=EPSILON_AXIS,
        yaxis={"title": "attacker's gain over the features alone", "range": [-0.05, 1.0]},
        **LAYOUT,
    )
    return figure
