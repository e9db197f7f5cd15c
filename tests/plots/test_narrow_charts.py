"""A narrow chart (a phone, a half-page column): panels stacked, legend entries wrapped (issue 53).

The browser tests (tests/app/test_browser_phone.py) measure the boxes; these check the layout
the figure asks for and that the chart's numbers keep their series' names.
"""

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from labeldp_core import plots
from labeldp_core.plots_base.bars_across import ROW_PX
from labeldp_core.plots_base.common import figure_table
from labeldp_core.plots_base.readable import projector_ready

TITLES = ("first panel", "second panel", "third panel")
LONG = "Vector randomized response: ε per label (replace-one)"


def _row_of_panels() -> go.Figure:
    figure = make_subplots(1, 3, subplot_titles=TITLES)
    for column in (1, 2, 3):
        figure.add_scatter(x=[1, 2], y=[column, 0], name=f"series {column}", row=1, col=column)
        figure.update_xaxes(title_text="epsilon (log scale)", row=1, col=column)
    return figure


def _domains(figure: go.Figure, axis: str) -> list[tuple[float, float]]:
    return [tuple(figure.layout[f"{axis}{n}"].domain) for n in ("", "2", "3")]


def test_a_row_of_panels_is_stacked_top_to_bottom_in_its_order_on_a_narrow_chart():
    figure = projector_ready(_row_of_panels(), narrow=True)
    assert _domains(figure, "xaxis") == [(0, 1)] * 3
    y = _domains(figure, "yaxis")
    assert all(0 <= low < high <= 1 for low, high in y), y
    assert y[0][0] > y[1][1] and y[1][0] > y[2][1], y  # top first, apart
    titles = {a.text: a for a in figure.layout.annotations if a.text in TITLES}
    assert [titles[t].y for t in TITLES] == pytest.approx([1, y[1][1], y[2][1]])
    assert figure.layout.height >= 3 * 200


def test_a_wide_chart_keeps_its_panels_side_by_side_and_a_stacked_one_stays_stacked():
    wide = projector_ready(_row_of_panels())
    assert len(set(_domains(wide, "xaxis"))) == 3
    stacked = projector_ready(_row_of_panels(), narrow=True)
    before = (_domains(stacked, "yaxis"), stacked.layout.height)
    projector_ready(stacked, narrow=True)  # twice changes nothing
    assert (_domains(stacked, "yaxis"), stacked.layout.height) == before


def test_a_long_legend_entry_wraps_on_a_narrow_chart_and_the_csv_keeps_its_name():
    figure = go.Figure([go.Scatter(x=[1], y=[1], name=LONG), go.Scatter(x=[1], y=[2], name="RR")])
    projector_ready(figure, narrow=True, demo=True)
    assert "<br>" in figure.data[0].name and figure.data[1].name == "RR"
    assert [row["series"] for row in figure_table(figure)] == [LONG, "RR"]
    wide = go.Figure([go.Scatter(x=[1], y=[1], name=LONG), go.Scatter(x=[1], y=[2], name="RR")])
    assert projector_ready(wide).data[0].name == LONG


def _measured_guesses() -> go.Figure:
    rows = [
        {"mechanism": name, "released_label": 0.4, "model_on_training_example": 0.5}
        | {"model_on_test_example": 0.45}
        for name in ("Randomized response", "RR with prior", "LP-2ST", "ALIBI", "Vector RR")
    ]
    clean = {"mechanism": "no privacy (clean labels)", "private": False}
    return plots.attack_bars([*rows, clean], 1.0, 10)


def test_on_a_narrow_chart_the_measured_guesses_lie_across_each_group_on_its_own_row():
    # Issue 53: on a 390 px phone What ε means' seven group names under upright bars ran into
    # each other ("RR with prior" over "LP-2ST"); across, each group's name has a row.
    wide = projector_ready(_measured_guesses())
    narrow = projector_ready(_measured_guesses(), narrow=True)
    assert {t.orientation for t in wide.data if t.type == "bar"} == {None}
    assert {t.orientation for t in narrow.data if t.type == "bar"} == {"h"}
    assert narrow.layout.yaxis.ticktext == wide.layout.xaxis.ticktext  # the names, as rows
    assert narrow.layout.yaxis.autorange == "reversed"  # the first group on top
    assert narrow.layout.xaxis.title.text == wide.layout.yaxis.title.text
    (ticks,) = [t for t in narrow.data if t.type == "scatter"]
    assert ticks.marker.symbol == "line-ns-open"  # a bound still ticks across its own bar
    assert narrow.layout.height >= margin_free(narrow) >= 6 * ROW_PX
    assert figure_table(narrow) == figure_table(wide)  # the CSV does not depend on the screen
    again = projector_ready(narrow, narrow=True)
    assert figure_table(again) == figure_table(wide) and again.data[0].orientation == "h"


def margin_free(figure: go.Figure) -> int:
    """The figure's height less its top and bottom margins, in px."""
    return figure.layout.height - figure.layout.margin.t - figure.layout.margin.b
