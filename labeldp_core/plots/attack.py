"""Figures of the "what epsilon means" page: the guessing bound and measured label attacks."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labeldp_core.plots.compare import short_name
from labeldp_core.plots_base.bars_across import ACROSS_WHEN_NARROW
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, mark_bound, mark_epsilon, on_white
from labeldp_core.plots_base.readable import wrap

__all__ = [
    "ATTACKS",
    "BOUND_COLOUR",
    "attack_bars",
    "attack_bounds",
    "guess_bound",
    "guess_bound_figure",
    "neighbour_outputs_figure",
    "tally_figure",
]

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
        x=grid,
        y=guess_bound(grid, 1 / num_classes),
        mode="lines",
        name=f"uniform prior (1/K = {1 / num_classes:.2f}): e^ε/(e^ε+K-1)",
    )
    for prior in priors:
        figure.add_scatter(
            x=grid,
            y=guess_bound(grid, prior),
            mode="lines",
            line={"dash": "dot"},
            name=f"adversary already {prior:.0%} sure",
        )
    mark_epsilon(figure, epsilon)
    on_white(figure).update_layout(
        title="How sure an adversary can become about one training label",
        xaxis=EPSILON_AXIS,
        yaxis={"title": "largest chance of guessing right", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


#: Where each attack's bar sits in its group (Plotly's grouped bars: 0.8 of a category, split).
_OFFSETS = {column: (index - 1) * 0.8 / 3 for index, column in enumerate(ATTACKS)}


def attack_bounds(row: dict[str, Any], epsilon: float, num_classes: int) -> dict[str, float]:
    """The ε bound each of a private row's attacks must stay under, against its own prior.

    The released label: a row may carry ``released_label_bound``, the bound for the prior its
    release started from (RR-with-prior and LP-2ST pick each label's candidates from the public
    image, so a guess starts above 1/K: max_k e^ε S_k(p) / (e^ε + k - 1), the reasoning in
    :func:`labeldp_core.families.rr_prior.release.prior_guess_bound`); None there means that
    bound was not stored and no tick is drawn; a row that released no label (vector RR's bits:
    ``released_label`` None) has no tick there either. A row without it was released with no
    prior: 1/K, the bound e^ε / (e^ε + K - 1). The model's guess on a training example is
    compared with what the model knows without that example's label, its accuracy on examples it
    never saw (π): π e^ε / (π e^ε + 1 − π), so a model that learned the task is not mistaken for
    one that leaks labels. The held-out guess needs no bound.
    """
    bounds = {}
    if "released_label" in row and row["released_label"] is None:
        pass  # no label released (vector RR releases bits): nothing to bound
    elif "released_label_bound" not in row:
        bounds["released_label"] = float(guess_bound(epsilon, 1 / num_classes))
    elif row["released_label_bound"] is not None:
        bounds["released_label"] = float(row["released_label_bound"])
    held_out = row.get("model_on_test_example")
    if held_out is not None and 0 < held_out < 1:
        bounds["model_on_training_example"] = float(guess_bound(epsilon, held_out))
    return bounds


#: Characters per line of a group's name under the bars.
_NAME_WIDTH = 12
#: The colour of the bound ticks (the page's text names it).
BOUND_COLOUR = "black"


def attack_bars(rows: Sequence[dict[str, Any]], epsilon: float, num_classes: int) -> go.Figure:
    """Measured attack success per mechanism (grouped bars), each with the bound it must obey.

    A row with ``"private": False`` (the model on clean labels) has no bound. Each bound is a
    black tick on its own bar (:func:`attack_bounds`).
    """
    positions = list(range(len(rows)))
    figure = go.Figure()
    for column, label in ATTACKS.items():
        values = [row.get(column) for row in rows]
        figure.add_bar(
            x=positions,
            y=values,
            name=label,
            text=[f"{v:.2f}" if v is not None else "n/a" for v in values],
            # level, at the bar's foot: its top is where the bound's tick may sit
            textposition="inside",
            insidetextanchor="start",
            textangle=0,
        )
    ticks = [
        (index + _OFFSETS[column], bound)
        for index, row in enumerate(rows)
        if row.get("private", True)
        for column, bound in attack_bounds(row, epsilon, num_classes).items()
    ]
    # An open marker is stroked in marker.color (its line.color is ignored): both are set.
    figure.add_scatter(
        x=[x for x, _ in ticks],
        y=[y for _, y in ticks],
        mode="markers",
        marker={
            "symbol": "line-ew-open",
            "size": 26,
            "color": BOUND_COLOUR,
            "line": {"width": 3, "color": BOUND_COLOUR},
        },
        name=f"ε = {epsilon:g} bound for that guess, from the prior it starts with",
        hovertemplate="bound %{y:.3f}<extra></extra>",
    )
    on_white(figure).update_layout(
        title=f"Measured guesses of a training label at ε = {epsilon:g}",
        barmode="group",
        # names on two lines, never slanted: a slanted last name was not drawn at all
        xaxis={
            "tickmode": "array",
            "tickvals": positions,
            "ticktext": [_group_name(row) for row in rows],
            "tickangle": 0,
        },
        yaxis={"title": "share guessed right", "range": [0, 1.05]},
        meta={ACROSS_WHEN_NARROW: True},  # on a phone seven names under the bars overlap
        **LAYOUT,
    )
    return figure


def _group_name(row: dict[str, Any]) -> str:
    """A row's name under its bars: a mechanism's short name, on lines of a few words.

    >>> _group_name({"mechanism": "ALIBI (Bayesian soft labels)"})
    'ALIBI'
    >>> _group_name({"mechanism": "no privacy (clean labels)", "private": False})
    'no privacy<br>(clean<br>labels)'
    """
    name = row["mechanism"]
    return wrap(short_name(name) if row.get("private", True) else name, _NAME_WIDTH)


def neighbour_outputs_figure(
    first: Sequence[float], second: Sequence[float], epsilon: float, class_names: Sequence[str]
) -> go.Figure:
    """RR's output distributions for two neighbouring labels, the e^ε gap shaded where it is."""
    names = list(class_names)
    figure = go.Figure()
    figure.add_bar(x=names, y=list(first), name=f"true label {names[0]}")
    figure.add_bar(x=names, y=list(second), name=f"true label {names[1]}")
    for index in (0, 1):
        low, high = sorted((first[index], second[index]))
        figure.add_shape(
            type="rect",
            x0=index - 0.45,
            x1=index + 0.45,
            y0=low,
            y1=high,
            fillcolor="rgba(213, 94, 0, 0.25)",
            line={"width": 0},
        )
    figure.add_annotation(
        x=0.5,
        y=max(first[0], second[1]),
        yanchor="bottom",
        showarrow=False,
        text=f"ratio e^ε = {float(np.exp(epsilon)):.3g}",
    )
    on_white(figure).update_layout(
        title=f"What RR releases for two neighbouring labels at ε = {epsilon:g}",
        barmode="group",
        xaxis={"title": "released label"},
        yaxis={"title": "probability", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def tally_figure(hit_rates: Sequence[tuple[str, float, float, float]], bound: float) -> go.Figure:
    """The class's hit rate (with its interval) beside the most any guesser can reach.

    ``hit_rates`` holds (name, rate, low, high) rows, e.g. the class's and the released label's.
    """
    figure = go.Figure()
    for name, rate, low, high in hit_rates:
        figure.add_scatter(
            x=[name],
            y=[rate],
            mode="markers",
            marker={"size": 14},
            name=name,
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [high - rate],
                "arrayminus": [rate - low],
            },
        )
    mark_bound(figure, bound, f"the most anyone can reach: {bound:.3f}")
    on_white(figure).update_layout(
        title="Your class's guesses vs the ε bound",
        showlegend=False,
        yaxis={"title": "share guessed right", "range": [0, 1.05]},
        meta={ACROSS_WHEN_NARROW: True},  # on a phone seven names under the bars overlap
        **LAYOUT,
    )
    return figure
