"""Figures of the comparison page: every mechanism's score vs epsilon, privacy units marked.

Each point sits at the epsilon its accounting computed (``epsilon_spent``), under the mechanism's
own neighbouring relation, so no curve is drawn at an epsilon that was not computed: DPPL-Mean,
which calibrates its zCDP rho to the epsilon asked, is drawn at the (epsilon, delta) that rho
converts to. The legend and the table say which guarantees carry a delta.
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labeldp_core.engine.spec import RunResult
from labeldp_core.plots.colours import UNIT_DASH, mechanism_of
from labeldp_core.plots.common import LABEL_DP_AXIS_RANGE, LABEL_DP_RANGE, score_vs_epsilon

__all__ = [
    "NEIGHBOURS",
    "UNIT_DASH",
    "UNIT_ORDER",
    "clean_baseline",
    "comparison_figure",
    "keep_to_label_dp_range",
    "summary_at",
    "summary_rows",
]

#: The neighbouring relation each privacy unit's epsilon is for.
NEIGHBOURS = {
    "label": "replace-one label",
    "example": "add/remove one example",
    "output": "one output vector (local DP)",
}


def _guarantee(results: Sequence[RunResult]) -> str:
    """What kind of epsilon a series has: pure, with a delta, or converted from zCDP."""
    delta = max((r.delta for r in results), default=0.0)
    kind = f"(ε, δ={delta:g})" if delta else "pure ε"
    if any("rho" in r.details for r in results):
        return f"ρ-zCDP as {kind}"
    return kind


def comparison_figure(
    results: Mapping[str, Sequence[RunResult]],
    units: Mapping[str, str],
    baseline: float | None,
    metric: str,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean score vs the epsilon each mechanism spent (band over seeds), dashed for example DP.

    Args:
        results: results by legend name.
        units: privacy unit by legend name ("label", "example" or "output").
        baseline: the clean-label score of the common model, drawn as a line.
        metric: "test accuracy" or "test MSE".
        marked_epsilon: the epsilon chosen on the page.

    Each legend entry reads "name [unit; guarantee]", e.g. "DP-SGD [example; (ε, δ=1e-05)]"; the
    hover gives the epsilon spent and the epsilon asked.
    """
    named = {f"{name} [{units[name]}; {_guarantee(rows)}]": rows for name, rows in results.items()}
    mechanisms = {
        label: mechanism
        for label, (name, rows) in zip(named, results.items(), strict=True)
        if (mechanism := mechanism_of(name, rows)) is not None
    }
    figure = score_vs_epsilon(
        named, baseline, metric=metric, marked_epsilon=marked_epsilon, at_spent=True,
        mechanisms=mechanisms,
    )  # fmt: skip
    if metric == "test MSE":
        figure.update_yaxes(type="log")
    figure.update_layout(legend_title_text="mechanism [privacy unit; guarantee]")
    if any(rows for rows in results.values()):
        keep_to_label_dp_range(figure)
    return figure


def keep_to_label_dp_range(figure: go.Figure) -> None:
    """Span the x axis over the label-DP grid; mark points beyond it at the edge, not drop them.

    A mechanism whose epsilons lie far outside (the DP prototypes' 0.01) would otherwise
    squeeze every other curve into a corner. Each point off the axis gets an open triangle at
    the edge, in its line's colour, pointing the way it lies; its hover gives its epsilon.
    """
    low, high = LABEL_DP_RANGE
    lines = [t for t in figure.data if t.mode == "lines+markers" and t.x is not None]
    for trace in lines:
        xs, ys = np.asarray(trace.x, float), np.asarray(trace.y, float)
        for edge, symbol, outside in ((low, "triangle-left-open", np.less),
                                      (high, "triangle-right-open", np.greater)):  # fmt: skip
            off = outside(xs, edge)
            if not off.any():
                continue
            figure.add_scatter(
                x=[edge] * int(off.sum()), y=ys[off], mode="markers", showlegend=False,
                marker={"symbol": symbol, "size": 13, "color": trace.line.color},
                name=f"{trace.name} (off the axis)", customdata=xs[off],
                hovertemplate="ε spent %{customdata:.3g}, off the axis: %{y:.3f}<extra></extra>",
            )  # fmt: skip
    figure.update_xaxes(range=LABEL_DP_AXIS_RANGE)


def clean_baseline(results: Sequence[RunResult], metric: str) -> float | None:
    """The mean clean-label score on ``metric`` over the seeds of ``results``, or None.

    Every run records its model trained on clean labels; the runs of one seed share that model,
    so each seed counts once.
    """
    field = "baseline_test_accuracy" if metric == "test accuracy" else "baseline_test_mse"
    by_seed = {r.seed: getattr(r, field) for r in results if getattr(r, field) is not None}
    return float(np.mean(list(by_seed.values()))) if by_seed else None


def _guarantee_text(group: Sequence[RunResult]) -> str:
    spent, delta = max(r.epsilon_spent for r in group), group[0].delta
    text = f"({spent:.3g}, {delta:g})-DP" if delta else f"{spent:.3g}-DP"
    rho = group[0].details.get("rho")
    if rho is not None:
        text = f"ρ = {rho:.3g} zCDP, so {text}"
    return f"{text}, {NEIGHBOURS.get(group[0].privacy_unit, group[0].privacy_unit)}"


#: The order privacy units are listed in: label DP first, then example-level, then local.
UNIT_ORDER = ("label", "example", "output")


def summary_rows(
    results: Sequence[RunResult], order: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """Mean and standard deviation over seeds per (mechanism, epsilon), with the accounting.

    Rows come in the order of ``order`` (the mechanisms as the figure's legend lists them;
    others after them, by name), each mechanism's epsilons ascending.
    """
    groups: dict[tuple[str, float], list[RunResult]] = defaultdict(list)
    for result in results:
        groups[(result.mechanism, result.epsilon)].append(result)
    rank = {mechanism: index for index, mechanism in enumerate(order)}

    def position(key: tuple[str, float]) -> tuple[int, str, float]:
        return rank.get(key[0], len(rank)), key[0], key[1]

    rows = []
    for (mechanism, epsilon), group in sorted(groups.items(), key=lambda item: position(item[0])):
        scores = np.array([r.score for r in group])
        spent = np.array([r.epsilon_spent for r in group])
        rows.append({
            "mechanism": mechanism,
            "privacy unit": group[0].privacy_unit,
            "epsilon asked": epsilon,
            "epsilon spent (max over seeds)": float(spent.max()),
            "delta": group[0].delta,
            "guarantee": _guarantee_text(group),
            "metric": "test accuracy" if group[0].test_accuracy is not None else "test MSE",
            "mean": float(scores.mean()),
            "std": float(scores.std(ddof=1)) if len(scores) > 1 else 0.0,
            "seeds": len(group),
            "clean baseline": float(np.mean([r.baseline_score for r in group])),
        })  # fmt: skip
    return rows


def summary_at(results: Sequence[RunResult], epsilon: float) -> list[dict[str, Any]]:
    """One row per mechanism at the asked epsilon nearest ``epsilon``, grouped by privacy unit.

    Within a unit the best first (highest accuracy, or lowest MSE); each row says the epsilon
    the mechanism spent there and its guarantee in words.
    """
    if not results:
        return []
    asked = {r.epsilon for r in results}
    nearest = min(asked, key=lambda e: abs(np.log(e) - np.log(epsilon)))
    rows = summary_rows([r for r in results if r.epsilon == nearest])

    def key(row: dict[str, Any]) -> tuple[int, str, float]:
        unit = row["privacy unit"]
        better = -row["mean"] if row["metric"] == "test accuracy" else row["mean"]
        return (UNIT_ORDER.index(unit) if unit in UNIT_ORDER else len(UNIT_ORDER), unit, better)

    return [
        {"privacy unit": row["privacy unit"], "mechanism": row["mechanism"],
         row["metric"]: round(row["mean"], 4), "± std": round(row["std"], 4),
         "ε spent": round(row["epsilon spent (max over seeds)"], 4),
         "guarantee": row["guarantee"]}
        for row in sorted(rows, key=key)
    ]  # fmt: skip
