"""Figures readable on a projector: numbers on log axes, legends below, titles wrapped."""

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from labeldp_core.plots import EPSILON_AXIS, projector_ready
from labeldp_core.plots_base.readable import LOG_TICK_VALUES, TITLE_WIDTH, log_tick_text


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
    assert figure.layout.xaxis.tickvals is None and figure.layout.xaxis.tickfont.size == 16


@pytest.mark.parametrize("value", [1e-6, 3e-5, 0.07, 3.0, 7000.0, 2e6])
def test_tick_text_reads_back_as_the_value(value):
    assert float(log_tick_text(value).replace(",", "")) == pytest.approx(value, rel=1e-12)


def test_legend_below_titles_wrapped_and_ticks_large_and_dark():
    long = "keep and flip probabilities of K-ary randomized response at every epsilon"
    figure = projector_ready(_epsilon_figure(long))
    legend = figure.layout.legend
    assert legend.orientation == "h" and (legend.yref, legend.y, legend.yanchor) == (
        "container",
        0,
        "bottom",
    )
    lines = figure.layout.title.text.split("<br>")
    assert " ".join(lines) == long and max(map(len, lines)) <= TITLE_WIDTH
    assert figure.layout.xaxis.tickfont.size >= 16 and figure.layout.xaxis.tickfont.color == "#222"


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


def _text_sizes(figure: go.Figure) -> dict[str, float]:
    layout = figure.layout
    return {
        "tick": min(a.tickfont.size for a in (*figure.select_xaxes(), *figure.select_yaxes())),
        "axis title": min(
            a.title.font.size for a in (*figure.select_xaxes(), *figure.select_yaxes())
        ),
        "title": layout.title.font.size,
        "legend": layout.legend.font.size,
        "subplot title": min(a.font.size for a in layout.annotations),
    }


def _subplots() -> go.Figure:
    figure = make_subplots(rows=1, cols=2, subplot_titles=("left", "right"))
    figure.add_scatter(x=[1, 2], y=[1, 2], row=1, col=1)
    figure.add_scatter(x=[1, 2], y=[1, 2], row=1, col=2)
    figure.update_xaxes(title_text="x")
    figure.update_layout(title="a figure")
    return figure


def test_ticks_at_least_16_px_titles_18_and_demo_mode_larger():
    default = _text_sizes(projector_ready(_subplots()))
    demo = _text_sizes(projector_ready(_subplots(), demo=True))
    assert default["tick"] >= 16 and default["legend"] >= 16
    assert min(default["axis title"], default["title"], default["subplot title"]) >= 18
    assert all(demo[key] > default[key] for key in default), (demo, default)


def test_axis_titles_are_dark_not_light_grey():
    figure = projector_ready(_subplots())
    for axis in (*figure.select_xaxes(), *figure.select_yaxes()):
        assert axis.title.font.color == "#222" and axis.tickfont.color == "#222"
    assert figure.layout.title.font.color == "#222"


def test_the_title_is_lifted_above_the_subplot_titles():
    figure = projector_ready(_subplots())
    (left, right) = figure.layout.annotations
    title = figure.layout.title
    # Subplot titles sit on the plot; the title's bottom is padded above their whole row.
    assert left.yshift == right.yshift == 0
    assert (title.yref, title.yanchor) == ("paper", "bottom")
    assert title.pad.b >= left.font.size and figure.layout.margin.t >= title.pad.b + title.font.size


def test_a_note_asked_higher_is_stacked_above_the_others():
    figure = _epsilon_figure()
    figure.add_annotation(text="ε = 1", x=0, y=1, xref="paper", yref="paper", yanchor="bottom")
    figure.add_annotation(
        text="a boxed note",
        x=0,
        y=1.02,
        xref="paper",
        yref="paper",
        yanchor="bottom",
        borderwidth=1,
    )
    projector_ready(figure)
    label, note = figure.layout.annotations
    assert label.yshift == 0 and note.yshift >= label.font.size


def test_a_long_legend_makes_the_figure_taller_not_the_plot_smaller():
    figure = go.Figure()
    for index in range(8):
        figure.add_scatter(
            x=[1, 2], y=[index, index], name=f"mechanism number {index} [label; pure ε]"
        )
    projector_ready(figure, demo=True)  # one entry a row, in large type
    assert figure.layout.height > 450
