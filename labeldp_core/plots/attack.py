"""Figures of the "what epsilon means" page: the guessing bound and measured label attacks."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labeldp_core.plots.common import EPSILON_AXIS, LAYOUT, mark_epsilon

__all__ = ["ATTACKS", "attack_bars", "guess_bound", "guess_bound_figure"]

#: Columns of an attack row and how the figure names them.
ATTACKS = {
    "released_label": "guess = the released label",
    "model_on_training_example": "model's prediction on the training example",
    "model_on_test_example": "same model on an unseen test example",
}


def guess_bound(epsilon: np.ndarray | float, prior: float) -> np.ndarray:
    """Largest chance an ε-label-DP release lets an adversary be right about one label.

    An adversary who already believes the label with probability ``prior`` ends with posterior
    at most prior e^ε / (prior e^ε + 1 - prior). With a uniform prior over K classes
    (prior = 1/K) this is e^ε / (e^ε + K - 1).
    """
    odds = np.exp(np.asarray(epsilon, dtype=float)) * prior / (1.0 - prior)
    return odds / (1.0 + odds)


def guess_bound_figure(
    num_classes: int, epsilon: float, priors: Sequence[float] = (0.5, 0.9)
) -> go.Figure:
    """The bound vs epsilon for a uniform prior over K classes and for a few stronger beliefs."""
    grid = np.geomspace(0.05, 20, 200)
    figure = go.Figure()
    figure.add_scatter(
        x=grid, y=guess_bound(grid, 1 / num_classes), mode="lines",
        name=f"uniform prior (1/K = {1 / num_classes:.2f}): e^ε/(e^ε+K-1)",
    )  # fmt: skip
    for prior in priors:
        figure.add_scatter(
            x=grid, y=guess_bound(grid, prior), mode="lines", line={"dash": "dot"},
            name=f"adversary already {prior:.0%} sure",
        )  # fmt: skip
    mark_epsilon(figure, epsilon)
    figure.update_layout(
        title="How sure an adversary can become about one training label",
        xaxis=EPSILON_AXIS, yaxis={"title": "largest chance of guessing right", "range": [0, 1]},
        **LAYOUT,
    )  # fmt: skip
    return figure


def attack_bars(rows: Sequence[dict[str, Any]], uniform_bound: float) -> go.Figure:
    """Measured attack success per mechanism (grouped bars) with the uniform-prior bound."""
    names = [row["mechanism"] for row in rows]
    figure = go.Figure()
    for column, label in ATTACKS.items():
        values = [row.get(column) for row in rows]
        figure.add_bar(
            x=names, y=values, name=label,
            text=[f"{v:.2f}" if v is not None else "n/a" for v in values],
        )  # fmt: skip
    figure.add_hline(
        y=uniform_bound, line_dash="dash", line_color="black",
        annotation_text=f"bound for a uniform prior: {uniform_bound:.2f}",
    )  # fmt: skip
    figure.update_layout(
        title="Measured guesses of a training label", barmode="group",
        yaxis={"title": "share of labels guessed right", "range": [0, 1.05]}, **LAYOUT,
    )  # fmt: skip
    return figure
