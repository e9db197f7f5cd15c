"""Figures of consensus retraining: a page's accuracy curve with and without it, and its set.

Consensus retraining (Das et al. 2025, :mod:`labeldp_core.engine.consensus`) trains again on
the training examples where the first model agrees with the released label. It is
post-processing of the release, so each retrained curve sits at the same epsilon as the curve it
retrains. A retrained series keeps its mechanism's colour and is drawn dotted with diamonds, so
the two curves of one mechanism read as a pair. The consensus set's label accuracy reads the
true labels: the set's figure is a diagnostic, said so on its axis.
"""

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labeldp_core.engine.consensus import CONSENSUS_NOTE
from labeldp_core.engine.spec import RunResult
from labeldp_core.plots.scores import score_vs_epsilon
from labeldp_core.plots_base.colours import band_colour, series_styles
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, mark_epsilon, on_white
from labeldp_core.registry import MECHANISM_STYLES

__all__ = [
    "CONSENSUS_SUFFIX",
    "consensus_curves",
    "consensus_name",
    "consensus_rows",
    "consensus_set_figure",
]

#: What a retrained series' name adds to the name of the series it retrains.
CONSENSUS_SUFFIX = " + consensus"
#: How a retrained series is drawn: its mechanism's colour, dotted, with diamonds.
_DASH, _SYMBOL = "dot", "diamond"


def consensus_name(name: str) -> str:
    """The name of ``name``'s series retrained on its consensus set.

    >>> consensus_name("RR")
    'RR + consensus'
    """
    return f"{name}{CONSENSUS_SUFFIX}"


def consensus_curves(
    without: Mapping[str, Sequence[RunResult]],
    retrained: Mapping[str, Sequence[RunResult]],
    baseline: float | None = None,
    *,
    chance: float | None = None,
    marked_epsilon: float | None = None,
    mechanisms: Mapping[str, str] | None = None,
) -> go.Figure:
    """Mean test accuracy vs epsilon of each series, without and with consensus retraining.

    Args:
        without: results by legend name, trained once on the released labels.
        retrained: the same series' results with ``consensus=1``, by the same names.
        baseline: the clean-label accuracy of the same model, drawn as a line.
        chance: the accuracy of guessing, drawn dotted.
        marked_epsilon: the epsilon chosen on the page.
        mechanisms: each name's mechanism (or variant, "laplace/soft") where the name does not
            say it, as :func:`~labeldp_core.plots.score_vs_epsilon` takes it.

    Each retrained series is named :func:`consensus_name` and drawn in its series' colour,
    dotted, with diamond markers; its band (over seeds) in the same colour.
    """
    series: dict[str, Sequence[RunResult]] = {}
    for name, rows in without.items():
        series[name] = rows
        series[consensus_name(name)] = retrained.get(name, ())
    figure = score_vs_epsilon(
        series, baseline, chance=chance, marked_epsilon=marked_epsilon, mechanisms=mechanisms
    )
    styles = series_styles(without, MECHANISM_STYLES, mechanisms)
    for trace in figure.data:
        name = _series_of(str(trace.name), styles)
        if name is None:
            continue
        colour, dash = styles[name.removesuffix(CONSENSUS_SUFFIX)]
        retrained_trace = name.endswith(CONSENSUS_SUFFIX)
        if trace.fill == "toself":
            trace.fillcolor = band_colour(colour, 0.12 if retrained_trace else 0.2)
            continue
        trace.line.color, trace.marker.color = colour, colour
        trace.line.dash = _DASH if retrained_trace else dash
        if retrained_trace:
            trace.marker.symbol = _SYMBOL
    figure.update_layout(title="Test accuracy with and without consensus retraining")
    return figure


def _series_of(trace_name: str, styles: Mapping[str, tuple[str, str]]) -> str | None:
    """The series a trace of :func:`consensus_curves` draws (its line or its band), or None."""
    for name in styles:
        for candidate in (consensus_name(name), name):
            if trace_name in (candidate, f"{candidate} range over seeds"):
                return candidate
    return None


def _set_points(rows: Sequence[RunResult], figure: str) -> tuple[list[float], list[float]]:
    """Epsilons and the mean over seeds of the consensus note's ``figure`` (or label accuracy)."""
    by_epsilon: dict[float, list[float]] = {}
    for row in rows:
        found = row.details.get(CONSENSUS_NOTE, {})
        value = row.label_accuracy if figure == "released" else found.get(figure)
        if value is not None:
            by_epsilon.setdefault(row.epsilon, []).append(float(value))
    xs = sorted(by_epsilon)
    return xs, [float(np.mean(by_epsilon[x])) for x in xs]


def consensus_set_figure(
    retrained: Mapping[str, Sequence[RunResult]],
    *,
    marked_epsilon: float | None = None,
    mechanisms: Mapping[str, str] | None = None,
) -> go.Figure:
    """The consensus set vs epsilon: its share of the training set, and its labels' accuracy.

    Left: the share of training examples kept (reads no true label). Right (a diagnostic that
    reads the true labels): the label accuracy of the kept examples, solid, and of every
    released label, dotted; the gap is how much cleaner the set retrained on is.
    """
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            "share of training examples kept",
            "label accuracy (diagnostic: reads true labels)",
        ),
    )
    styles = series_styles(retrained, MECHANISM_STYLES, mechanisms)
    for name, rows in retrained.items():
        colour = styles[name][0]
        for column, figure_key, dash, label in (
            (1, "share", "solid", f"{name}: share kept"),
            (2, "label_accuracy", "solid", f"{name}: kept labels"),
            (2, "released", "dot", f"{name}: all released labels"),
        ):
            xs, ys = _set_points(rows, figure_key)
            figure.add_scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                name=label,
                line={"color": colour, "dash": dash},
                marker={"color": colour, "symbol": _SYMBOL},
                showlegend=column == 2,
                row=1,
                col=column,
            )
    figure.update_xaxes(**EPSILON_AXIS)
    figure.update_yaxes(range=[0, 1.02])
    on_white(figure).update_layout(**LAYOUT, title="The consensus set")
    if marked_epsilon is not None:
        mark_epsilon(figure, marked_epsilon)
    return figure


def consensus_rows(retrained: Mapping[str, Sequence[RunResult]], epsilon: float) -> list[dict]:
    """One row per retrained run at ``epsilon``: accuracy without, with, the gain, the set.

    "without" is the first model of the same run (trained on every released label, same seed
    and labels), so the gain is paired. The set's label accuracy reads the true labels.
    """
    table = []
    for name, rows in retrained.items():
        for row in sorted(rows, key=lambda r: r.seed):
            found = row.details.get(CONSENSUS_NOTE)
            if row.epsilon != epsilon or not found or row.test_accuracy is None:
                continue
            first = found.get("first_test_score")
            table.append(
                {
                    "mechanism": name,
                    "seed": row.seed,
                    "without": first,
                    "with consensus": row.test_accuracy,
                    "gain": None if first is None else row.test_accuracy - first,
                    "set size": found["size"],
                    "set share": found["share"],
                    "set label accuracy (diagnostic)": found["label_accuracy"],
                }
            )
    return table
