"""Figures of the Laplace-on-labels page: what the model trains on, MSE vs epsilon, the bins."""

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labeldp_core.engine.spec import RunResult
from labeldp_core.families.laplace_labels import FAMILY
from labeldp_core.families.laplace_labels.release import expected_regression_mse
from labeldp_core.families.laplace_labels.rr_bins_release import (
    RRBins,
    expected_squared_error,
    optimal_bins,
)
from labeldp_core.plots_base.colours import series_styles, styles_of
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, on_white

__all__ = [
    "expected_label_mse_figure",
    "mse_vs_epsilon",
    "noisy_vectors_figure",
    "power_law_slope",
    "rr_bins_figure",
]

#: This family's mechanisms' styles: its figures draw its own mechanisms only.
_STYLES = styles_of(FAMILY.mechanisms)


def noisy_vectors_figure(
    labels: Sequence[int], panels: Mapping[str, np.ndarray], class_names: Sequence[str]
) -> go.Figure:
    """One heatmap per panel (the noisy vectors, then each training target), one row per example."""
    names = list(class_names)
    rows = [f"#{i + 1}: true {names[label]}" for i, label in enumerate(labels)]
    figure = make_subplots(1, len(panels), subplot_titles=list(panels), horizontal_spacing=0.04)
    for column, values in enumerate(panels.values(), start=1):
        values = np.asarray(values, dtype=float)
        signed = bool(values.min() < 0 or values.max() > 1)
        colours = (
            {"colorscale": "RdBu", "zmid": 0.0, "reversescale": True}
            if signed
            else {
                "colorscale": "Blues",
                "zmin": 0.0,
                "zmax": 1.0,
            }
        )
        text = {"texttemplate": "%{z:.2f}", "textfont": {"size": 9}} if len(names) <= 5 else {}
        figure.add_heatmap(
            z=values,
            x=names,
            y=rows,
            showscale=False,
            **colours,
            **text,
            hovertemplate="%{y}, class %{x}: %{z:.3f}<extra></extra>",
            row=1,
            col=column,
        )
        figure.update_xaxes(type="category", title_text="class", row=1, col=column)
        figure.update_yaxes(
            type="category", autorange="reversed", showticklabels=column == 1, row=1, col=column
        )
    on_white(figure).update_layout(
        title="Noisy one-hot vectors and the training targets made from them (hover for values)",
        **(LAYOUT | {"margin": LAYOUT["margin"] | {"t": 90}}),
    )
    return figure


def power_law_slope(epsilons: Sequence[float], values: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit of log(value) = c + s log(ε): returns (s, e^c), so value ≈ e^c ε^s."""
    x, y = np.log(np.asarray(epsilons, float)), np.log(np.asarray(values, float))
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(np.exp(intercept))


def mse_vs_epsilon(
    series: Mapping[str, Sequence[RunResult]],
    baselines: Mapping[str, float] | None = None,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean test MSE vs ε on log-log axes per series, each with its fitted power law dashed."""
    figure = go.Figure()
    all_epsilons = [r.epsilon for results in series.values() for r in results]
    styles = series_styles(series, _STYLES)
    for name, results in series.items():
        colour = styles[name][0]
        by_epsilon: dict[float, list[float]] = defaultdict(list)
        for result in results:
            by_epsilon[result.epsilon].append(result.score)
        epsilons = sorted(by_epsilon)
        means = [float(np.mean(by_epsilon[e])) for e in epsilons]
        label = name
        if len(epsilons) >= 2:
            slope, factor = power_law_slope(epsilons, means)
            label = f"{name} (slope {slope:.2f})"
            figure.add_scatter(
                x=epsilons,
                y=[factor * e**slope for e in epsilons],
                mode="lines",
                line={"dash": "dash", "width": 1, "color": colour},
                showlegend=False,
                hoverinfo="skip",
                name=f"{name} fit",
            )
        if epsilons:
            figure.add_scatter(
                x=epsilons,
                y=means,
                mode="lines+markers",
                name=label,
                line={"color": colour},
                hovertemplate="ε=%{x:g}: MSE %{y:.3f}",
            )
    span = [min(all_epsilons, default=0.1), max(all_epsilons, default=10.0)]
    for name, value in (baselines or {}).items():
        _horizontal(figure, span, value, f"{name}: {value:.3f}", "green")
    if marked_epsilon is not None:
        figure.add_vline(x=marked_epsilon, line_dash="dash", line_color="grey")
    on_white(figure).update_layout(
        title="Test MSE vs epsilon (log-log; slope of the fitted power law in the legend)",
        xaxis=EPSILON_AXIS,
        yaxis={"type": "log", "title": "test MSE (log scale)"},
        **LAYOUT,
    )
    return figure


def expected_label_mse_figure(
    prior: np.ndarray,
    epsilon: float,
    values: np.ndarray | None = None,
    epsilon_range: tuple[float, float] = (0.05, 20.0),
) -> go.Figure:
    """Closed-form MSE of the released training labels vs ε: Laplace (clamped) vs RR-on-bins.

    Labels take the ``values`` (default 0..K-1) with probabilities ``prior``; both curves use
    that prior.
    """
    prior = np.asarray(prior, dtype=float)
    support = np.arange(prior.shape[0], dtype=float) if values is None else np.asarray(values)
    grid = np.geomspace(*epsilon_range, 120)
    low, high = support[0], support[-1]
    laplace = [float(prior @ expected_regression_mse(support, e, low, high)) for e in grid]
    bins = [expected_squared_error(optimal_bins(support, prior, e), prior) for e in grid]
    variance = float(prior @ (support - prior @ support) ** 2)
    figure = go.Figure()
    figure.add_scatter(
        x=grid,
        y=laplace,
        mode="lines",
        name="Laplace, clamped",
        line={"color": _STYLES["laplace-regression"].colour},
    )
    figure.add_scatter(
        x=grid,
        y=bins,
        mode="lines",
        name="RR-on-bins",
        line={"color": _STYLES["rr-bins"].colour},
    )
    _horizontal(figure, list(epsilon_range), variance, f"always the mean: {variance:.2f}", "grey")
    figure.add_vline(x=epsilon, line_dash="dash", line_color="grey")
    top = np.log10(max(laplace) * 2)
    on_white(figure).update_layout(
        title="Released-label MSE (closed form)",
        xaxis=EPSILON_AXIS,
        yaxis={"type": "log", "title": "label MSE (log scale)", "range": [top - 4, top]},
        **LAYOUT,
    )
    return figure


def _horizontal(figure: go.Figure, span: list[float], y: float, name: str, colour: str) -> None:
    """A dotted horizontal line as a trace: ``add_hline`` annotations misplace on log axes."""
    figure.add_scatter(
        x=span,
        y=[y, y],
        mode="lines",
        line={"dash": "dot", "color": colour},
        name=name,
        hoverinfo="name",
    )


def rr_bins_figure(bins: RRBins) -> go.Figure:
    """Each label value's bin output (the value released when RR keeps it), bins as steps."""
    figure = go.Figure()
    figure.add_scatter(
        x=bins.values,
        y=bins.values,
        mode="lines",
        line={"dash": "dot", "color": "grey"},
        name="identity",
    )
    figure.add_scatter(
        x=bins.values,
        y=bins.outputs[bins.bin_of_value],
        mode="lines+markers",
        line={"shape": "hv"},
        customdata=bins.bin_of_value,
        name="output of its bin",
        hovertemplate="label %{x:g} -> bin %{customdata}, released %{y:.3f}<extra></extra>",
    )
    on_white(figure).update_layout(
        title=f"RR-on-bins, ε_release = {bins.epsilon:.3g}: {bins.num_bins} bins",
        xaxis={"title": "true label value"},
        yaxis={"title": "released value"},
        **LAYOUT,
    )
    return figure
