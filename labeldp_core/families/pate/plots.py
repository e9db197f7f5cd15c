"""Figures of the PATE page: teachers, their agreement, the noise's effect, the privacy spent."""

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labeldp_core.engine.spec import RunResult
from labeldp_core.families.pate import FAMILY
from labeldp_core.plots_base.colours import styles_of
from labeldp_core.plots_base.common import LAYOUT, mark_chance, mark_level, on_white, score_curves

__all__ = [
    "agreement_histograms",
    "epsilon_vs_queries",
    "label_accuracy_by_agreement",
    "student_accuracy_vs_epsilon",
    "teacher_accuracy_strip",
]


def teacher_accuracy_strip(
    accuracies: Sequence[float],
    plurality_accuracy: float | None = None,
    chance: float | None = None,
) -> go.Figure:
    """One dot per teacher: its accuracy on the public part, with the ensemble's plurality vote."""
    figure = go.Figure(
        go.Box(
            y=list(accuracies),
            name=f"{len(accuracies)} teachers",
            boxpoints="all",
            jitter=0.6,
            pointpos=0,
            marker={"size": 6, "opacity": 0.7},
            line={"color": "rgba(0,0,0,0.3)"},
            fillcolor="rgba(0,0,0,0)",
            hovertemplate="teacher accuracy %{y:.3f}<extra></extra>",
        )
    )
    if plurality_accuracy is not None:
        text = f"plurality vote of all teachers: {plurality_accuracy:.3f}"
        mark_level(figure, plurality_accuracy, text, "dash", "green")
    if chance is not None:
        mark_chance(figure, chance)
    on_white(figure).update_layout(
        title="Teacher accuracy on the public queries (one dot per teacher)",
        yaxis={"title": "accuracy", "range": [0, 1.02]},
        showlegend=False,
        **LAYOUT,
    )
    return figure


def agreement_histograms(
    top_votes: Sequence[int], top_two_gap: Sequence[int], teachers: int
) -> go.Figure:
    """Histograms per query of the top vote share and of the gap between the top two counts.

    One above the other, each the full width of the half-page column the page gives them: side
    by side, their titles ran into each other and the second x title was cut.
    """
    figure = make_subplots(
        rows=2,
        cols=1,
        vertical_spacing=0.3,
        subplot_titles=("vote share of the top class", "lead over the runner-up"),
    )
    share = np.asarray(top_votes, dtype=float) / teachers
    figure.add_histogram(
        x=share,
        xbins={"start": 0, "end": 1.0001, "size": 0.05},
        name="top vote share",
        hovertemplate="share %{x}: %{y} queries<extra></extra>",
        row=1,
        col=1,
    )
    figure.add_histogram(
        x=list(top_two_gap),
        nbinsx=min(teachers + 1, 40),
        name="gap",
        hovertemplate="gap %{x}: %{y} queries<extra></extra>",
        row=2,
        col=1,
    )
    figure.update_xaxes(title_text="top count / teachers", range=[0, 1.02], row=1, col=1)
    figure.update_xaxes(
        title_text="top count − runner-up (votes)", range=[0, teachers + 1], row=2, col=1
    )
    figure.update_yaxes(title_text="queries")
    on_white(figure).update_layout(
        title="How much the teachers agree", showlegend=False, height=620, **LAYOUT
    )
    return figure


def label_accuracy_by_agreement(
    top_votes: Sequence[int],
    teachers: int,
    plurality: Sequence[int],
    released: Sequence[int],
    true_labels: Sequence[int],
    bins: int = 10,
) -> go.Figure:
    """Per bin of top vote share: accuracy of the plurality and of the released labels, etc.

    Released labels of -1 (not answered by Confident-GNMax) count as unanswered; accuracy and the
    share changed by noise are over the answered queries of the bin.
    """
    share = np.asarray(top_votes, dtype=float) / teachers
    plurality, released, truth = (np.asarray(a) for a in (plurality, released, true_labels))
    answered = released >= 0
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(share, edges[1:-1]), 0, bins - 1)
    centres, counts = [], []
    rates: dict[str, list[float | None]] = {
        "plurality of the votes is right": [],
        "released (noisy) label is right": [],
        "noise changed the answer": [],
        "query answered": [],
    }
    for b in range(bins):
        inside = which == b
        if not inside.any():
            continue
        done = inside & answered
        centres.append(float((edges[b] + edges[b + 1]) / 2))
        counts.append(int(inside.sum()))
        rates["plurality of the votes is right"].append(
            float(np.mean(plurality[inside] == truth[inside]))
        )
        rates["released (noisy) label is right"].append(
            float(np.mean(released[done] == truth[done])) if done.any() else None
        )
        rates["noise changed the answer"].append(
            float(np.mean(released[done] != plurality[done])) if done.any() else None
        )
        rates["query answered"].append(float(np.mean(answered[inside])))
    figure = go.Figure()
    for name, values in rates.items():
        if name == "query answered" and answered.all():
            continue
        figure.add_scatter(
            x=centres,
            y=values,
            mode="lines+markers",
            name=name,
            customdata=counts,
            hovertemplate="top share ≈ %{x:.2f}: %{y:.3f} (%{customdata} queries)",
        )
    on_white(figure).update_layout(
        title="Released labels vs teacher agreement",
        xaxis={"title": "share of teachers voting for the top class", "range": [0, 1]},
        yaxis={"title": "share of the queries in the bin", "range": [0, 1.02]},
        **LAYOUT,
    )
    return figure


def epsilon_vs_queries(
    curve: Mapping[str, Sequence[float]], target_epsilon: float | None = None
) -> go.Figure:
    """Epsilon spent after the first n queries: data-independent and data-dependent bounds."""
    names = {
        "data_independent": "data-independent (publishable)",
        "data_independent_answered_only": (
            "answered queries only: valid only under a budget filter fixed in advance"
        ),
        "data_dependent": "data-dependent (itself private)",
    }
    dashes = {"data_independent": "solid", "data_independent_answered_only": "dot"}
    figure = go.Figure()
    for key, name in names.items():
        if key in curve:
            figure.add_scatter(
                x=list(curve["queries"]),
                y=list(curve[key]),
                mode="lines+markers",
                name=name,
                line={"dash": dashes.get(key, "dash")},
                hovertemplate="%{x} queries: ε = %{y:.3g}<extra></extra>",
            )
    if target_epsilon is not None:
        mark_level(figure, target_epsilon, f"budget ε = {target_epsilon:g}")
    on_white(figure).update_layout(
        title="Privacy spent as the number of queries grows",
        xaxis={"title": "queries asked (log scale)", "type": "log"},
        yaxis={"title": "epsilon", "rangemode": "tozero"},
        **LAYOUT,
    )
    return figure


def student_accuracy_vs_epsilon(
    results: Sequence[RunResult],
    baseline: float | None = None,
    clean_student: float | None = None,
    *,
    chance: float | None = None,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """The student's test accuracy vs epsilon, with the student trained on the true labels."""
    figure = score_curves(
        {"student on noisy labels": results},
        styles_of(FAMILY.mechanisms),
        baseline,
        chance=chance,
        marked_epsilon=marked_epsilon,
    )
    if clean_student is not None:
        text = f"student on the true labels of the same queries: {clean_student:.3f}"
        mark_level(
            figure, clean_student, text, "dashdot", "purple", annotation_position="bottom right"
        )
    figure.update_layout(title="Student test accuracy vs epsilon")
    return figure
