"""The quicker ways charts are built draw the same figures, byte for byte (issue 52).

``on_white`` sets the template without validating it again, and ``projector_ready`` styles every
axis in one update: each is checked against the Plotly calls it replaces. (Every chart of the
pages' tests was compared byte for byte before and after, once, outside the suite.)
"""

import copy
import json

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from labeldp_core.plots import projector_ready
from labeldp_core.plots_base.common import LAYOUT, TEMPLATE, on_white
from labeldp_core.plots_base.readable import SIZES, TEXT_COLOUR, _assign, _axis_names
from tests.plots.chart_samples import IN_COLUMNS, NAMED

SAMPLES = NAMED | IN_COLUMNS


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_sample_chart_is_on_the_template_as_a_validated_update_sets_it(name):
    figure = SAMPLES[name]()
    validated = go.Figure(figure)  # a copy: its keys in Plotly's order, so compared parsed
    validated.update_layout(template=TEMPLATE)
    assert json.loads(figure.to_json()) == json.loads(validated.to_json())
    assert figure.layout.template == go.Layout(template="plotly_white").template


@pytest.mark.parametrize(
    "make",
    [
        go.Figure,
        lambda: go.Figure(layout=LAYOUT),
        lambda: make_subplots(2, 6, subplot_titles=[str(i) for i in range(12)]),
    ],
)
def test_on_white_writes_the_json_of_update_layout_with_the_template(make):
    quick, validated = make(), make()
    on_white(quick).update_layout(title="t", **LAYOUT)
    validated.update_layout(title="t", template=TEMPLATE, **LAYOUT)
    assert quick.to_json() == validated.to_json()


def test_a_figure_on_white_shares_nothing_with_the_next_one():
    first, second = on_white(go.Figure()), on_white(go.Figure())
    first.layout.template.layout.font.size = 99
    assert second.layout.template.layout.font.size != 99
    assert on_white(go.Figure()).layout.template == go.Layout(template=TEMPLATE).template


@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (2, 6), (3, 4)])
def test_the_axes_styled_are_those_update_xaxes_and_update_yaxes_would_style(shape):
    figure = make_subplots(*shape)
    selected = [axis.plotly_name for axis in figure.select_xaxes()]
    selected += [axis.plotly_name for axis in figure.select_yaxes()]
    assert _axis_names(figure) == selected


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("narrow", [False, True])
def test_one_update_styles_every_axis_update_xaxes_and_update_yaxes_would_style(name, narrow):
    figure = SAMPLES[name]()
    one_update = projector_ready(copy.deepcopy(figure), narrow=narrow)
    per_axis = go.Figure(one_update)  # a copy: its keys in Plotly's order, so compared parsed
    style = {
        "tickfont": {"size": SIZES.tick, "color": TEXT_COLOUR},
        "title_font": {"size": SIZES.axis_title, "color": TEXT_COLOUR},
        "automargin": True,
        "title_standoff": 8,
    }
    per_axis.update_xaxes(**style)
    per_axis.update_yaxes(**style)
    assert json.loads(one_update.to_json()) == json.loads(per_axis.to_json())


UPDATES = {
    "legend": {
        "orientation": "h",
        "x": 0,
        "font": {"size": 16, "color": TEXT_COLOUR},
        "title": {"font": {"size": 16}, "side": "top"},
    },
    "title": {"x": 0, "pad": {"l": 6, "b": 18}, "font": {"size": 20}, "yanchor": "bottom"},
    "xaxis": {"tickmode": "array", "tickvals": [1, 2], "minor": {"showgrid": False}},
    "yaxis2": {"tickfont": {"size": 16}, "title_font": {"size": 18}, "title_standoff": 8},
}


@pytest.mark.parametrize("part", sorted(UPDATES))
def test_assigning_a_property_at_a_time_writes_the_json_update_writes(part):
    def made():
        figure = make_subplots(1, 2, subplot_titles=["a", "b"])
        figure.update_layout(title="a title", yaxis2_title="y", legend_x=0.5)
        return figure

    quick, updated = made(), made()
    _assign(quick.layout[part], UPDATES[part])
    updated.layout[part].update(UPDATES[part])
    assert quick.to_json() == updated.to_json()
    pairs = zip(quick.layout.annotations, updated.layout.annotations, strict=True)
    for annotation, again in pairs:
        _assign(annotation, {"yshift": 12, "font": {"size": 18, "color": TEXT_COLOUR}})
        again.update(yshift=12, font={"size": 18, "color": TEXT_COLOUR})
    assert quick.to_json() == updated.to_json()
