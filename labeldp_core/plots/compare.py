"""Figures of the comparison page: every mechanism's score vs epsilon, privacy units marked."""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from labeldp_core.experiments.spec import RunResult
from labeldp_core.plots.common import score_vs_epsilon

__all__ = ["UNIT_DASH", "comparison_figure", "summary_rows"]

#: Line style per privacy unit, so label-DP and example-DP curves are told apart at a glance.
UNIT_DASH = {"label": "solid", "example": "dash", "output": "dot"}


def comparison_figure(
    results: Mapping[str, Sequence[RunResult]],
    units: Mapping[str, str],
    baseline: float | None,
    metric: str,
    marked_epsilon: float | None = None,
) -> go.Figure:
    """Mean score vs epsilon per mechanism (band over seeds), dashed for example-level DP.

    Args:
        results: results by legend name.
        units: privacy unit by legend name ("label", "example" or "output").
        baseline: the clean-label score of the common model, drawn as a line.
        metric: "test accuracy" or "test MSE".
        marked_epsilon: the epsilon chosen on the page.
    """
    named = {f"{name} [{units[name]}]": rows for name, rows in results.items()}
    figure = score_vs_epsilon(named, baseline, metric=metric, marked_epsilon=marked_epsilon)
    for trace in figure.data:
        unit = trace.name.rsplit("[", 1)[-1].rstrip("]") if trace.name else ""
        if unit in UNIT_DASH and trace.mode == "lines+markers":
            trace.line.dash = UNIT_DASH[unit]
    if metric == "test MSE":
        figure.update_yaxes(type="log")
    figure.update_layout(legend_title_text="mechanism [privacy unit]")
    return figure


def summary_rows(results: Sequence[RunResult]) -> list[dict[str, Any]]:
    """Mean and standard deviation over seeds per (mechanism, epsilon), with the accounting."""
    groups: dict[tuple[str, float], list[RunResult]] = defaultdict(list)
    for result in results:
        groups[(result.mechanism, result.epsilon)].append(result)
    rows = []
    for (mechanism, epsilon), group in sorted(groups.items()):
        scores = np.array([r.score for r in group])
        spent = np.array([r.epsilon_spent for r in group])
        rows.append({
            "mechanism": mechanism,
            "privacy unit": group[0].privacy_unit,
            "epsilon asked": epsilon,
            "epsilon spent (max over seeds)": float(spent.max()),
            "delta": group[0].delta,
            "metric": "test accuracy" if group[0].test_accuracy is not None else "test MSE",
            "mean": float(scores.mean()),
            "std": float(scores.std(ddof=1)) if len(scores) > 1 else 0.0,
            "seeds": len(group),
            "clean baseline": float(np.mean([r.baseline_score for r in group])),
        })  # fmt: skip
    return rows
