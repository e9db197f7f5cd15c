"""Lines named at their ends: each label by its line's last point, none over another."""

import math
from itertools import pairwise

import plotly.graph_objects as go
import pytest

from labeldp_core.plots import projector_ready
from labeldp_core.plots_base.end_labels import (
    add_end_label,
    end_label_room,
    end_labels,
    spread_end_labels,
)

RANGE = [math.log10(0.05), math.log10(20.0)]


def _figure(ends: dict[str, float], y_type: str = "linear") -> go.Figure:
    """One line per name, ending at ε = 8 at the given height, labelled at its end."""
    figure = go.Figure()
    figure.update_xaxes(type="log", range=RANGE)
    figure.update_yaxes(type=y_type, range=[0.0, 1.0] if y_type == "linear" else [-1.0, 1.0])
    for name, end in ends.items():
        figure.add_scatter(x=[1.0, 8.0], y=[end / 2, end], name=name)
        add_end_label(figure, 8.0, end, name, "#0072B2")
    return figure


def _centres_px(figure: go.Figure, plot_height: float) -> dict[str, float]:
    low, high = figure.layout.yaxis.range
    return {a.text: (a.ay - low) / (high - low) * plot_height for a in end_labels(figure)}


def test_a_label_sits_past_the_axis_end_joined_to_its_lines_last_point():
    figure = _figure({"RR": 0.8})
    (label,) = end_labels(figure)
    assert (label.x, label.y) == pytest.approx((math.log10(8.0), 0.8))
    assert (label.axref, label.ax, label.ayref, label.ay) == ("x", RANGE[1], "y", 0.8)
    assert label.xanchor == "left" and label.font.color == label.arrowcolor == "#0072B2"


def test_labels_at_one_point_are_moved_apart_by_their_heights_in_order():
    names = ["one", "two", "three", "four"]
    figure = _figure(dict.fromkeys(names, 0.5))
    spread_end_labels(figure, 20, 300.0)
    centres = _centres_px(figure, 300.0)
    gaps = [centres[b] - centres[a] for a, b in pairwise(names)]
    assert all(gap >= 20 * 1.3 for gap in gaps), gaps  # one line of 20 px text each
    assert all(0 <= c <= 300 for c in centres.values())


def test_a_label_with_room_stays_level_with_its_point():
    figure = _figure({"low": 0.1, "high": 0.9})
    spread_end_labels(figure, 20, 300.0)
    assert {a.text: a.ay for a in end_labels(figure)} == pytest.approx({"low": 0.1, "high": 0.9})


def test_a_label_pushed_past_the_top_comes_back_down_under_it():
    figure = _figure({"a": 0.99, "b": 0.995, "c": 1.0})
    spread_end_labels(figure, 20, 300.0)
    centres = _centres_px(figure, 300.0)
    assert max(centres.values()) <= 300 - 20 * 1.3 / 2
    assert centres["a"] < centres["b"] < centres["c"]


def test_on_a_log_axis_labels_are_placed_by_log10_as_plotly_reads_them():
    figure = _figure({"MSE": 2.0}, y_type="log")
    (label,) = end_labels(figure)
    assert label.y == label.ay == pytest.approx(math.log10(2.0))


def test_a_line_ending_past_the_axis_is_labelled_at_its_edge():
    figure = _figure({})
    add_end_label(figure, 50.0, 0.5, "far", "#000000")
    (label,) = end_labels(figure)
    assert label.x == pytest.approx(RANGE[1])


def test_the_right_margin_holds_the_longest_label_and_long_names_wrap():
    figure = _figure({"Laplace on one-hot labels": 0.5, "PATE": 0.6})
    texts = [a.text for a in end_labels(figure)]
    assert texts == ["Laplace on one-hot<br>labels", "PATE"]
    width, height = end_label_room(figure, 20)
    assert width >= len("Laplace on one-hot") * 0.55 * 20 and height >= 3 * 20 * 1.3
    projector_ready(figure, demo=True)
    assert figure.layout.margin.r == width


def test_many_labels_make_the_figure_taller_and_no_label_leaves_the_plot():
    figure = _figure({f"mechanism {i}": 0.9 for i in range(12)})
    projector_ready(figure, demo=True)
    margin = figure.layout.margin
    plot = figure.layout.height - margin.t - margin.b
    assert plot >= end_label_room(figure, 20)[1]
    assert all(0 <= c <= plot for c in _centres_px(figure, plot).values())


def test_applying_projector_ready_twice_changes_no_label():
    once = projector_ready(_figure(dict.fromkeys(["a", "b", "c"], 0.5)))
    twice = projector_ready(go.Figure(once))
    assert twice.to_plotly_json() == once.to_plotly_json()


def test_an_end_label_needs_the_x_range():
    with pytest.raises(ValueError, match="range"):
        add_end_label(go.Figure(), 1.0, 0.5, "RR", "#000000")
