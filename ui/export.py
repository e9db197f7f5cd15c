"""Download buttons: a chart's numbers as CSV, a standalone HTML report."""

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core.plots import figure_table, projector_ready

__all__ = ["chart", "csv_button", "csv_text", "html_button"]


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """Rows of dicts as CSV text, columns in order of first appearance."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns)
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def csv_button(rows: Sequence[dict[str, Any]], file_name: str, key: str) -> None:
    """A button that downloads ``rows`` as ``file_name``; hidden when there is nothing to save."""
    if rows:
        st.download_button(
            "Download these numbers (CSV)", csv_text(rows), file_name=file_name,
            mime="text/csv", key=key,
        )  # fmt: skip


def html_button(make_report: Callable[[], str], file_name: str, key: str) -> None:
    """A button that builds a standalone HTML report only when clicked."""
    st.download_button(
        "Download a standalone HTML report", make_report, file_name=file_name,
        mime="text/html", key=key,
    )  # fmt: skip


def chart(where: DeltaGenerator, figure: go.Figure, *, key: str) -> None:
    """Draw ``figure`` in ``where`` (``st``, a column, ...) with a download of its numbers as CSV.

    The figure is made projector-ready first (numbers on log axes, the legend below, titles
    wrapped); the CSV is built only when the button is clicked.
    """
    where.plotly_chart(projector_ready(figure), key=key)
    where.download_button(
        "Download this chart's numbers (CSV)", lambda: csv_text(figure_table(figure)),
        file_name=f"{key}.csv", mime="text/csv", key=f"{key}_csv", type="tertiary",
    )  # fmt: skip
