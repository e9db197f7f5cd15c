"""Flip rates of the released training labels: plain RR's closed form beside measured series.

The RR-with-prior page draws its mechanisms (RR-with-prior, LP-2ST) beside plain randomized
response, another family's, so the figure sits above the registry and styles its series by the
registry's table.
"""

from collections.abc import Collection, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.engine.spec import RunResult
from labeldp_core.noise.randomized_response import expected_flip_rate
from labeldp_core.plots_base.colours import series_styles
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, on_white
from labeldp_core.registry import MECHANISM_STYLES

__all__ = ["flip_rate_comparison"]


def flip_rate_comparison(
    num_classes: int,
    series: Mapping[str, Sequence[RunResult]],
    marked_epsilon: float | None = None,
    *,
    with_expected: Collection[str] = (),
    epsilon_range: tuple[float, float] = (0.05, 20.0),
) -> go.Figure:
    """Flip rate vs epsilon: plain RR's closed form, and measured points per named series.

    Each series' measured flip rates are markers. For the series named in ``with_expected``,
    ``details["expected_flip_rate"]`` of each result (the closed form given the prior that run
    drew) is a dotted line, so the gap between expectation and measurement shows.
    """
    grid = np.geomspace(*epsilon_range, 200)
    figure = go.Figure()
    figure.add_scatter(
        x=grid,
        y=[expected_flip_rate(e, num_classes) for e in grid],
        mode="lines",
        name="RR closed form: (K-1)/(e^ε+K-1)",
        line={"color": "grey"},
    )
    styles = series_styles(series, MECHANISM_STYLES)
    for name, results in series.items():
        points = sorted((r for r in results if r.flip_rate is not None), key=lambda r: r.epsilon)
        if not points:
            continue
        epsilons = [r.epsilon for r in points]
        colour = styles[name][0]  # the mechanism's: markers and dotted line
        figure.add_scatter(
            x=epsilons,
            y=[r.flip_rate for r in points],
            mode="markers",
            name=f"{name}: measured",
            marker={"color": colour, "size": 9},
            hovertemplate="ε=%{x:g}: flip rate %{y:.3f}<extra>" + name + "</extra>",
        )
        if name in with_expected:
            figure.add_scatter(
                x=epsilons,
                y=[r.details["expected_flip_rate"] for r in points],
                mode="lines",
                line={"dash": "dot", "color": colour},
                name=f"{name}: expected given its prior",
            )
    if marked_epsilon is not None:
        figure.add_vline(x=marked_epsilon, line_dash="dash", line_color="grey")
    on_white(figure).update_layout(
        title="Flip rate of the released training labels vs epsilon",
        xaxis=EPSILON_AXIS,
        yaxis={"title": "flip rate", "range": [0, 1]},
        **LAYOUT,
    )
    return figure
