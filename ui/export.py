"""Download buttons: a chart's numbers as CSV, a standalone HTML report."""

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core.experiments import RunResult
from labeldp_core.plots import figure_table, projector_ready
from ui.demo import demo_mode

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
            "Download these numbers (CSV)",
            csv_text(rows),
            file_name=file_name,
            mime="text/csv",
            key=key,
        )


def html_button(make_report: Callable[[], str], file_name: str, key: str) -> None:
    """A button that builds a standalone HTML report only when clicked."""
    st.download_button(
        "Download a standalone HTML report",
        make_report,
        file_name=file_name,
        mime="text/html",
        key=key,
    )


def _result_text(result: RunResult) -> str:
    """A run result as canonical JSON: 16x quicker to hash than Streamlit's walk of the object."""
    return json.dumps(result.to_dict(), sort_keys=True)


@st.cache_resource(max_entries=512, show_spinner=False, hash_funcs={RunResult: _result_text})
def _ready_figure(
    name: str,
    demo: bool,
    narrow: bool,
    _builder: Callable[..., go.Figure],
    *args: Any,
    **kwargs: Any,
) -> go.Figure:
    """``_builder(*args, **kwargs)`` made projector-ready, built once per arguments per server.

    ``name`` (the builder's qualified name) is what tells builders apart in the cache key;
    Streamlit does not hash a function passed in; ``demo`` asks for demo mode's larger text,
    ``narrow`` for a title wrapped to a half-page column.
    Every visitor shares the object, so nothing may change it after this: with 30 students on
    the same cached page, building and styling the figures was most of each render's time.
    """
    return projector_ready(_builder(*args, **kwargs), demo=demo, narrow=narrow)


def _in_a_column(where: DeltaGenerator) -> bool:
    """Whether ``where`` (``st`` inside a ``with column:`` block, or a column) is in a column.

    Streamlit has no public way to ask; its own nesting check walks the same block types.
    """
    try:
        target = (st._main if where is st else where)._active_dg
        return "column" in target._ancestor_block_types
    except AttributeError:  # another Streamlit: a column passed in is still one
        return where is not st


def _on_a_phone() -> bool:
    """Whether the browser says it is a phone's (its User-Agent holds "Mobi").

    Every phone's browser says so (Android's Chrome and Firefox, iOS's Safari), no desktop's.
    A chart on a phone is drawn about 360 px wide, as in a half-page column: a title wrapped for
    the page's 820 px ran past the phone's edge, and an SVG text does not wrap by itself.
    """
    return "Mobi" in st.context.headers.get("User-Agent", "")


def chart(
    where: DeltaGenerator,
    figure: go.Figure | Callable[..., go.Figure],
    *args: Any,
    key: str,
    **kwargs: Any,
) -> None:
    """Draw a figure in ``where`` (``st``, a column, ...) with a download of its numbers as CSV.

    ``figure`` is a figure, or a function of the library's ``plots`` that builds one from
    ``*args`` and ``**kwargs``; a built figure is remembered for the same arguments, so a page
    every visitor opens at the same values builds it once. Either way the figure is made
    projector-ready (numbers on log axes, the legend below, titles wrapped; larger text in demo
    mode; wrapped sooner in a column or on a phone); the CSV is built only when the button is
    clicked.
    """
    demo, narrow = demo_mode(), _in_a_column(where) or _on_a_phone()
    if callable(figure) and not isinstance(figure, go.Figure):
        name = f"{figure.__module__}.{figure.__qualname__}"
        figure = _ready_figure(name, demo, narrow, figure, *args, **kwargs)
    else:
        figure = projector_ready(figure, demo=demo, narrow=narrow)
    where.plotly_chart(figure, key=key)
    where.download_button(
        "Download this chart's numbers (CSV)",
        lambda: csv_text(figure_table(figure)),
        file_name=f"{key}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        type="tertiary",
    )
