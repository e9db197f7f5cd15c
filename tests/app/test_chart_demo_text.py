"""Demo mode enlarges the charts' text too, not only the page's (issue 36, item 2)."""

import json

from streamlit.testing.v1 import AppTest

from labeldp_core.plots_base.readable import DEMO_SIZES, SIZES

PAGE = """
import plotly.graph_objects as go
import streamlit as st
from ui.export import chart

def figure(values):
    return go.Figure(go.Scatter(y=values), layout={"title": "a chart", "xaxis_title": "x"})

chart(st, figure, [1, 2, 3], key="built_here")
chart(st, go.Figure(go.Scatter(y=[3, 1]), layout={"xaxis_title": "x"}), key="passed_in")
"""


def _sizes(demo: bool) -> list[tuple[int, int]]:
    app = AppTest.from_string(PAGE)
    app.session_state["_demo_mode"] = demo
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    layouts = [json.loads(c.proto.spec)["layout"] for c in app.get("plotly_chart")]
    return [
        (lay["xaxis"]["tickfont"]["size"], lay["xaxis"]["title"]["font"]["size"]) for lay in layouts
    ]


def test_demo_mode_draws_larger_chart_text_and_the_default_is_projector_sized():
    assert _sizes(False) == [(SIZES.tick, SIZES.axis_title)] * 2
    assert _sizes(True) == [(DEMO_SIZES.tick, DEMO_SIZES.axis_title)] * 2


COLUMNS = """
import plotly.graph_objects as go
import streamlit as st
from ui.export import chart

def figure():
    return go.Figure(go.Scatter(y=[1, 2]), layout={"title": "a title long enough " * 3})

left, right = st.columns(2)
chart(st, figure, key="page_wide")
chart(left, figure, key="column_passed")
with right:
    chart(st, figure, key="st_in_a_with_column")
"""


def test_a_chart_in_a_column_wraps_its_title_sooner_however_it_is_placed():
    from labeldp_core.plots_base.readable import NARROW_TITLE_WIDTH, TITLE_WIDTH

    app = AppTest.from_string(COLUMNS).run()
    assert not app.exception, [e.value for e in app.exception]
    longest = sorted(
        max(map(len, json.loads(c.proto.spec)["layout"]["title"]["text"].split("<br>")))
        for c in app.get("plotly_chart")
    )  # the two in columns, then the page-wide one
    assert longest[1] <= NARROW_TITLE_WIDTH < longest[2] <= TITLE_WIDTH
