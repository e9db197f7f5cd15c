"""Figures of the "papers vs this explorer" page: their accuracy beside ours, and the lessons."""

import re
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from labeldp_core.plots_base.common import LAYOUT, on_white

__all__ = ["figure_label", "lesson_figure", "papers_figure"]


def figure_label(row: dict[str, Any]) -> str:
    """A published figure as a reader names it: method, model, first author and year, ε.

    >>> figure_label({"method": "DP-SGD", "model": "end-to-end CNN (tanh)",
    ...               "paper": "Tramer, Boneh. Title. ICLR 2021", "epsilon": 3})
    'DP-SGD · end-to-end CNN (Tramer et al. 2021, ε = 3)'
    """
    if not all(row.get(key) for key in ("method", "model", "paper")):  # a row not from reproduce
        return f"{row.get('title') or row['id']} (ε = {row['epsilon']:g})"
    author = row["paper"].split(",")[0].split(".")[0].strip()
    year = re.search(r"\b(?:19|20)\d\d\b", row["paper"])
    cited = f"{author} et al." + (f" {year.group()}" if year else "")
    method, model = (row[key].split(" (")[0] for key in ("method", "model"))
    return f"{method} · {model} ({cited}, ε = {row['epsilon']:g})"


def papers_figure(rows: Sequence[dict[str, Any]]) -> go.Figure:
    """Per published figure, their test accuracy and ours (mean over seeds, range as error bar).

    Rows whose runs are not computed yet get no bar of ours: the gap says so, and the legend
    says when none of ours is computed. Bars are named by :func:`figure_label`, not ids.
    """
    names = [figure_label(row).replace(" (", "<br>(", 1) for row in rows]
    figure = go.Figure()
    figure.add_bar(x=names, y=[row["theirs"] for row in rows], name="published")
    ours = [row.get("ours") for row in rows]
    none_yet = ", none computed yet" if all(value is None for value in ours) else ""
    figure.add_bar(
        x=names,
        y=ours,
        name=f"this explorer (seeds 0-2{none_yet})",
        error_y={
            "type": "data",
            "symmetric": False,
            "array": [row["ours_max"] - row["ours"] if row.get("ours") else 0 for row in rows],
            "arrayminus": [row["ours"] - row["ours_min"] if row.get("ours") else 0 for row in rows],
        },
    )
    on_white(figure).update_layout(
        title="Published test accuracy beside this explorer's at the same ε",
        barmode="group",
        yaxis={"title": "test accuracy", "range": [0, 1]},
        **LAYOUT,
    )
    return figure


def lesson_figure(rows: Sequence[dict[str, Any]]) -> go.Figure:
    """Per lesson and what it releases: the epsilon claimed, the one really spent, the audit's.

    A lesson may appear once per release (PATE's noisy counts and its argmax); its bars are then
    named by the lesson's number and the release, and a row without an audit gets no audit bar.
    """
    numbers = {lesson: i + 1 for i, lesson in enumerate(dict.fromkeys(r["lesson"] for r in rows))}
    names = [f"lesson {numbers[row['lesson']]}: {row['released']}" for row in rows]
    figure = go.Figure()
    for key, name in (
        ("claimed_epsilon", "ε claimed"),
        ("true_epsilon", "ε really spent"),
        ("audited_lower_bound", "lower bound the audit proves"),
    ):
        figure.add_bar(x=names, y=[row[key] for row in rows], name=name)
    on_white(figure).update_layout(
        title="What the seeds' slips claimed, spent, and what an audit proves",
        barmode="group",
        yaxis={"title": "ε"},
        **LAYOUT,
    )
    return figure
