"""Figures are built once per arguments and shared: what keeps 30 students' renders quick."""

import json

from streamlit.testing.v1 import AppTest

import ui.export

#: A page that draws one chart twice with equal arguments, then once with others.
PAGE = """
import plotly.graph_objects as go
import streamlit as st
from ui.export import chart

BUILT = st.session_state.setdefault("built", [])

def figure(values, title=""):
    BUILT.append(list(values))
    return go.Figure(go.Scatter(y=values), layout={"title": title})

chart(st, figure, [1, 2, 3], title="a long title " * 8, key="one")
chart(st, figure, [1, 2, 3], title="a long title " * 8, key="two")
chart(st, figure, [3, 2, 1], key="three")
"""


def test_equal_arguments_build_one_figure_and_others_their_own():
    ui.export._ready_figure.clear()
    app = AppTest.from_string(PAGE).run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.session_state["built"] == [[1, 2, 3], [3, 2, 1]]
    charts = app.get("plotly_chart")
    assert len(charts) == 3 and charts[0].proto.spec == charts[1].proto.spec
    assert "<br>" in _title(charts[0])  # made projector-ready: the long title wrapped
    again = AppTest.from_string(PAGE).run()  # another visitor: nothing built again
    assert again.session_state["built"] == []


#: A page that draws a figure it built itself.
BUILT_PAGE = """
import plotly.graph_objects as go
import streamlit as st
from ui.export import chart

chart(st, go.Figure(go.Scatter(y=[1, 2]), layout={"title": "t " * 40}), key="k")
"""


def test_a_built_figure_passed_in_is_made_ready_too():
    app = AppTest.from_string(BUILT_PAGE).run()
    assert not app.exception and "<br>" in _title(app.get("plotly_chart")[0])


def _title(chart) -> str:
    return json.loads(chart.proto.spec)["layout"]["title"]["text"]
