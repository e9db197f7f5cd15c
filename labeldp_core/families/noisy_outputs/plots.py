"""Figures of the noisy-outputs page: cluster quality vs epsilon and a 2-D view of the outputs."""

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from labeldp_core.engine.spec import RunResult
from labeldp_core.plots_base.common import LAYOUT, mark_level, on_white

__all__ = ["cluster_metrics_vs_epsilon", "output_projection"]

_PANELS = (
    ("silhouette", "Silhouette score"),
    ("calinski_harabasz", "Calinski-Harabasz score"),
    ("argmax_agreement", "Argmax agreement"),
)


def cluster_metrics_vs_epsilon(
    results: Sequence[RunResult], marked_epsilon: float | None = None
) -> go.Figure:
    """Silhouette, Calinski-Harabasz and argmax agreement of noisy outputs vs ε, clean as lines."""
    ordered = sorted(results, key=lambda r: (r.epsilon, r.seed))
    epsilons = [r.epsilon for r in ordered]
    figure = make_subplots(1, 3, subplot_titles=[title for _, title in _PANELS])
    for column, (key, title) in enumerate(_PANELS, start=1):
        noisy_key = key if key == "argmax_agreement" else f"{key}_noisy"
        figure.add_scatter(
            x=epsilons,
            y=[r.details[noisy_key] for r in ordered],
            mode="lines+markers",
            name=f"noisy: {title.lower()}",
            row=1,
            col=column,
            showlegend=False,
            hovertemplate="ε=%{x:g}: %{y:.3f}<extra></extra>",
        )
        clean = (
            1.0
            if key == "argmax_agreement"
            else (ordered[0].details[f"{key}_clean"] if ordered else None)
        )
        if clean is not None:
            mark_level(figure, clean, f"clean: {clean:.3g}", colour="green", row=1, col=column)
        if marked_epsilon is not None:
            figure.add_vline(
                x=marked_epsilon, line_dash="dash", line_color="grey", row=1, col=column
            )
        figure.update_xaxes(type="log", title_text="epsilon (log scale)", row=1, col=column)
    title = "How noise on the outputs erodes their structure"
    on_white(figure).update_layout(title=title, **LAYOUT)
    return figure


def output_projection(
    projection: Mapping[str, Any], class_names: Sequence[str], epsilon: float
) -> go.Figure:
    """Clean and noisy outputs projected on the clean outputs' two principal axes, by true class."""
    # Separate scales: noise of scale 2/ε would squash the clean outputs into a line.
    figure = make_subplots(
        1,
        2,
        subplot_titles=["clean softmax outputs", f"noisy outputs at ε = {epsilon:g} (own scale)"],
    )
    labels = list(projection["labels"])
    for column, key in enumerate(("clean", "noisy"), start=1):
        points = projection[key]
        for label, name in enumerate(class_names):
            chosen = [p for p, y in zip(points, labels, strict=True) if y == label]
            if not chosen:
                continue
            figure.add_scatter(
                x=[p[0] for p in chosen],
                y=[p[1] for p in chosen],
                mode="markers",
                marker={"size": 5, "color": qualitative.Plotly[label % len(qualitative.Plotly)]},
                name=str(name),
                legendgroup=str(name),
                showlegend=column == 1,
                row=1,
                col=column,
            )
    share = sum(projection["explained_variance"])
    figure.update_xaxes(title_text="first principal axis")
    figure.update_yaxes(title_text="second principal axis", col=1)
    on_white(figure).update_layout(
        title=f"Outputs on the clean outputs' principal axes ({share:.0%} of their variance)",
        legend_title_text="true class",
        **LAYOUT,
    )
    return figure
