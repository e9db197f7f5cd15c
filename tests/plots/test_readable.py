"""Figures readable on a projector: numbers on log axes, legends below, titles wrapped."""


import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from labeldp_core.plots import EPSILON_AXIS, projector_ready
from labeldp_core.plots.readable import LOG_TICK_VALUES, TITLE_WIDTH, log_tick_text


def _epsilon_figure(title: str = "Test accuracy vs epsilon") -> go.Figure:
    figure = go.Figure()
    figure.add_scatter(x=[0.05, 0.1, 1.0, 20.0], y=[0.1, 0.2, 0.8, 0.9], name="rr")
    figure.update_layout(title=title, xaxis=EPSILON_AXIS, yaxis={"type": "log"})
    return figure


def test_log_axes_are_labelled_with_the_numbers_themselves():
    figure = projector_ready(_epsilon_figure())
    for axis in (figure.layout.xaxis, figure.layout.yaxis):
        labels = dict(zip(axis.tickvals, axis.ticktext, strict=True))
        # Today's Plotly default labels 0.05 as "5" and 20 as "2".
        assert labels[0.05] == "0.05" and labels[20.0] == "20" and labels[0.1] == "0.1"
        assert labels[2.0] == "2" and labels[5.0] == "5" and labels[10.0] == "10"
        assert all(float(text.replace(",", "")) == value for value, text in labels.items())
    # Only 1, 2 and 5 of each decade: a reader sees a few round numbers.
    assert {round(v / 10 ** int(f"{v:e}".split("e")[1]), 6) for v in LOG_TICK_VALUES} == {1, 2, 5}


def test_linear_axes_keep_plotlys_own_ticks():
    figure = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    projector_ready(figure)
    assert figure.layout.xaxis.tickvals is None and figure.layout.xaxis.tickfont.size == 13


@pytest.mark.parametrize("value", [1e-6, 3e-5, 0.07, 3.0, 7000.0, 2e6])
def test_tick_text_reads_back_as_the_value(value):
    assert float(log_tick_text(value).replace(",", "")) == pytest.approx(value, rel=1e-12)


def test_legend_below_titles_wrapped_and_ticks_large_and_dark():
    long = "keep and flip probabilities of K-ary randomized response at every epsilon"
    figure = projector_ready(_epsilon_figure(long))
    assert figure.layout.legend.orientation == "h" and figure.layout.legend.y < 0
    lines = figure.layout.title.text.split("<br>")
    assert " ".join(lines) == long and max(map(len, lines)) <= TITLE_WIDTH
    assert figure.layout.xaxis.tickfont.size >= 13 and figure.layout.xaxis.tickfont.color == "#222"


def test_subplot_titles_wrap_too():
    titles = ("one dot per teacher and its accuracy on the public part", "short")
    figure = make_subplots(rows=1, cols=2, subplot_titles=titles)
    projector_ready(figure)
    texts = [a.text for a in figure.layout.annotations]
    assert "<br>" in texts[0] and texts[1] == "short"


def test_applying_it_twice_changes_nothing():
    once = projector_ready(_epsilon_figure("a title long enough to be wrapped at least once, ok"))
    twice = projector_ready(go.Figure(once))
    assert twice.to_plotly_json() == once.to_plotly_json()


