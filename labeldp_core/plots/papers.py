"""Figures of the "papers vs this explorer" page: their accuracy beside ours, and the lessons."""

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from labeldp_core.plots.common import LAYOUT

__all__ = ["lesson_figure", "papers_figure"]


def papers_figure(rows: Sequence[dict[str, Any]]) -> go.Figure:
    """Per published figure, their test accuracy and ours (mean over seeds, range as error bar).

    Rows whose runs are not computed yet get no bar of ours: the gap says so.
    """
    names = [f"{row['id']} (ε={row['epsilon']:g})" for row in rows]
    figure = go.Figure()
    figure.add_bar(x=names, y=[row["theirs"] for row in rows], name="published")
    ours = [row.get("ours") for row in rows]
    figure.add_bar(
        x=names, y=ours, name="this explorer (seeds 0-2)",
        error_y={
            "type": "data", "symmetric": False,
            "array": [row["ours_max"] - row["ours"] if row.get("ours") else 0 for row in rows],
            "arrayminus": [row["ours"] - row["ours_min"] if row.get("ours") else 0 for row in rows],
        },
    )  # fmt: skip
    figure.update_layout(
        title="Published test accuracy beside this explorer's at the same ε", barmode="group",
        yaxis={"title": "test accuracy", "range": [0, 1]}, **LAYOUT,
    )  # fmt: skip
    return figure


def lesson_figure(rows: Sequence[dict[str, Any]]) -> go.Figure:
    """Per lesson and what it releases: the epsilon claimed, the one really spent, the audit's.

    A lesson may appear once per release (PATE's noisy counts and its argmax); its bars are then
    named by the lesson's number and the release, and a row without an audit gets no audit bar.
    """
    numbers = {lesson: i + 1 for i, lesson in enumerate(dict.fromkeys(r["lesson"] for r in rows))}
    names = [f"lesson {numbers[row['lesson']]}: {row['released']}" for row in rows]
    figure = go.Figure()
    for key, name in (("claimed_epsilon", "ε claimed"), ("true_epsilon", "ε really spent"),
                      ("audited_lower_bound", "lower bound the audit proves")):  # fmt: skip
        figure.add_bar(x=names, y=[row[key] for row in rows], name=name)
    figure.update_layout(
        title="What the seeds' slips claimed, spent, and what an audit proves", barmode="group",
        yaxis={"title": "ε"}, **LAYOUT,
    )  # fmt: skip
    return figure
