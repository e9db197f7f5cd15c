"""The DP prototypes' accuracy figures, DP-SGD beside them.

The DP prototypes page draws DP-SGD (another family) on the same imbalanced data, so these
figures sit above the registry and take both families' colours from it.
"""

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from labeldp_core.engine.spec import RunResult
from labeldp_core.families.prototypes.plots import MECHANISM_NAMES
from labeldp_core.plots_base.common import EPSILON_AXIS, LAYOUT, mark_level, on_white
from labeldp_core.registry import MECHANISM_COLOURS

__all__ = ["dppl_accuracy_curves", "per_class_accuracy_bars", "per_class_accuracy_curves"]

_COLOURS = {m: MECHANISM_COLOURS[m] for m in ("dppl-mean", "dppl-public", "dppl-topk")}
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
_DPSGD_COLOUR = MECHANISM_COLOURS["dpsgd"]
#: The epsilon axis always reaches down to this, so a curve's missing small-epsilon end shows.
_SMALLEST_EPSILON = 0.01


def _epsilon_axis(figure: go.Figure, title: str) -> dict[str, object]:
    """A log axis from 0.01 to past the largest x in ``figure`` (at least 10)."""
    xs = [x for trace in figure.data for x in (trace.x or ())]
    top = max([10.0, *xs])
    low, high = math.log10(_SMALLEST_EPSILON / 1.25), math.log10(top * 1.25)
    return EPSILON_AXIS | {"title": f"{title} (log scale)", "range": [low, high]}


def _score(result: RunResult, minority: bool) -> float:
    return result.details["minority_accuracy"] if minority else result.score


def _mean_by(points: Sequence[tuple[float, float]]) -> tuple[list[float], list[float]]:
    grouped: dict[float, list[float]] = defaultdict(list)
    for x, y in points:
        grouped[x].append(y)
    xs = sorted(grouped)
    return xs, [float(np.mean(grouped[x])) for x in xs]


def dppl_accuracy_curves(
    results: Sequence[RunResult],
    *,
    minority: bool = False,
    spent: bool = False,
    dpsgd: Mapping[str, Sequence[tuple[float, float]]] | None = None,
    reference: float | None = None,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Test accuracy (or minority-class accuracy) vs epsilon: a line per mechanism and imbalance.

    Args:
        results: DPPL results; several seeds at one point are averaged.
        minority: plot the mean accuracy over the smallest classes instead of all of the test set.
        spent: put epsilon_spent on the x axis instead of the epsilon asked for (DPPL-Mean's
            points move right: it is only (epsilon, delta)-DP).
        dpsgd: extra series by legend name, as (epsilon, accuracy) points.
        reference: a horizontal line, e.g. the public-only classifier's accuracy.
        marked_epsilon: the epsilon chosen on the page.
    """
    series: dict[tuple[str, float], list[RunResult]] = defaultdict(list)
    for result in results:
        series[(result.mechanism, float(result.settings["imbalance"]))].append(result)
    ratios = sorted({ratio for _, ratio in series})
    figure = go.Figure()
    for (mechanism, ratio), members in sorted(series.items()):
        xs, ys = _mean_by(
            [(r.epsilon_spent if spent else r.epsilon, _score(r, minority)) for r in members]
        )
        figure.add_scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=f"{MECHANISM_NAMES.get(mechanism, mechanism)}, imbalance {ratio:g}",
            line={"color": _COLOURS.get(mechanism), "dash": _DASHES[ratios.index(ratio) % 5]},
            hovertemplate="ε=%{x:.3g}: %{y:.3f}<extra>%{fullData.name}</extra>",
        )
    for name, points in (dpsgd or {}).items():
        xs, ys = _mean_by(points)
        figure.add_scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=name,
            line={"color": _DPSGD_COLOUR, "dash": "dot"},
            marker={"symbol": "x", "size": 9},
        )
    if reference is not None:
        mark_level(figure, reference, f"public-only classifier: {reference:.3f}")
    if marked_epsilon is not None and not spent:
        figure.add_vline(x=marked_epsilon, line_dash="dash", line_color="grey")
    what = "minority-class accuracy" if minority else "test accuracy"
    axis = "ε spent (add/remove; DPPL-Mean at its δ)" if spent else "ε asked for"
    on_white(figure).update_layout(
        title=f"{what.capitalize()} vs ε",
        xaxis=_epsilon_axis(figure, axis),
        yaxis={"title": what, "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def _class_labels(class_names: Sequence[str], counts: Sequence[int]) -> list[str]:
    return [f"{name} (n={count})" for name, count in zip(class_names, counts, strict=True)]


def per_class_accuracy_bars(
    per_class: Sequence[float],
    baseline: Sequence[float],
    counts: Sequence[int],
    class_names: Sequence[str],
    minority: Sequence[int],
    dpsgd: Sequence[float] | None = None,
) -> go.Figure:
    """Accuracy per test class, classes sorted from the largest private class to the smallest.

    Bars: the DP prototypes, the same prototypes without privacy, and DP-SGD if given. The
    minority classes are marked with a star.
    """
    order = np.argsort(-np.asarray(counts), kind="stable")
    labels = _class_labels(class_names, counts)
    names = [("★ " if c in minority else "") + labels[c] for c in order]
    figure = go.Figure()
    figure.add_bar(
        x=names,
        y=[baseline[c] for c in order],
        name="non-private prototypes",
        marker_color="lightgrey",
    )
    figure.add_bar(
        x=names, y=[per_class[c] for c in order], name="DP prototypes", marker_color="#1f77b4"
    )
    if dpsgd is not None:
        figure.add_bar(
            x=names, y=[dpsgd[c] for c in order], name="DP-SGD", marker_color=_DPSGD_COLOUR
        )
    on_white(figure).update_layout(
        title="Test accuracy per class (★ = minority class; n = private training examples)",
        barmode="group",
        xaxis={"title": "class, largest private class first"},
        yaxis={"title": "test accuracy", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def per_class_accuracy_curves(
    results: Sequence[RunResult],
    class_names: Sequence[str],
    *,
    dpsgd_minority: Sequence[tuple[float, float]] | None = None,
) -> go.Figure:
    """Per-class test accuracy vs epsilon for one mechanism and imbalance; minority lines bold."""
    ordered = sorted(results, key=lambda r: r.epsilon)
    figure = go.Figure()
    if not ordered:
        return figure
    details = ordered[0].details
    counts, minority = details["class_counts"], set(details["minority_classes"])
    labels = _class_labels(class_names, counts)
    for cls in np.argsort(-np.asarray(counts), kind="stable"):
        xs, ys = _mean_by([(r.epsilon, r.details["per_class_accuracy"][cls]) for r in ordered])
        small = int(cls) in minority
        figure.add_scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=("★ " if small else "") + labels[cls],
            line={"width": 3 if small else 1, "dash": "solid" if small else "dot"},
            opacity=1.0 if small else 0.6,
        )
    if dpsgd_minority:
        xs, ys = _mean_by(dpsgd_minority)
        figure.add_scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name="DP-SGD, minority classes",
            line={"color": _DPSGD_COLOUR, "dash": "dot"},
            marker={"symbol": "x", "size": 9},
        )
    on_white(figure).update_layout(
        title="Test accuracy per class vs ε (★ bold = minority classes)",
        xaxis=_epsilon_axis(figure, "ε asked for"),
        yaxis={"title": "test accuracy", "range": [0, 1]},
        **LAYOUT,
    )
    return figure
