"""Legend entries wrapped for a narrow chart, each series keeping its name.

Plotly writes a legend entry on one line however long it is: on a phone's 358 px chart
"Vector randomized response: ε per label (replace-one)" ran past the chart's edge (issue 53).
On a narrow chart :func:`wrap_legend` breaks such an entry into lines; the series' own name,
the one the chart's CSV download gives, stays in the trace's ``meta`` (:func:`series_name`).
"""

import textwrap

import plotly.graph_objects as go

__all__ = ["rename_entry", "series_name", "wrap_legend"]

#: The key of ``meta`` that holds a wrapped series' own name.
_SERIES = "series"


def wrap_legend(figure: go.Figure, chars: int) -> None:
    """Break every legend entry longer than ``chars`` characters into lines (no word broken).

    >>> figure = go.Figure(go.Scatter(x=[1], y=[2], name="Vector randomized response: ε per label"))
    >>> wrap_legend(figure, 20)
    >>> figure.data[0].name, series_name(figure.data[0])
    ('Vector randomized<br>response: ε per<br>label', 'Vector randomized response: ε per label')
    """
    for trace in figure.data:
        name, meta = trace.name, trace.meta
        if not name or len(name) <= chars or "<br>" in name or not isinstance(meta, dict | None):
            continue
        lines = textwrap.wrap(name, chars, break_long_words=False, break_on_hyphens=False)
        rename_entry(trace, "<br>".join(lines))


def rename_entry(trace: go.Scatter, entry: str) -> None:
    """Write ``entry`` in ``trace``'s legend; its series keeps its own name (:func:`series_name`).

    >>> trace = go.Scatter(name="rr [label; ε-DP]")
    >>> rename_entry(trace, "Randomized response")
    >>> trace.name, series_name(trace)
    ('Randomized response', 'rr [label; ε-DP]')
    """
    meta = trace.meta if isinstance(trace.meta, dict) else {}
    trace.meta = {_SERIES: series_name(trace)} | meta
    trace.name = entry


def series_name(trace: go.Scatter) -> str | None:
    """A trace's series name: its own, even where its legend entry was wrapped."""
    meta = trace.meta
    return meta.get(_SERIES, trace.name) if isinstance(meta, dict) else trace.name
