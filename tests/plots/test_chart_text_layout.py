"""No text of a chart covers another or is cut, drawn by plotly.js in Chromium (issue 36, item 6).

The charts the issue names (Laplace on labels, PATE's agreement, DP-SGD's units, the privacy
audit, the papers, Compare) are drawn as the app shows them: made projector-ready, 820 px wide
(the main column at 1280x800) and 1400 px (at 1920x1080), with the default text sizes and demo
mode's. The facts checked are boxes, not pixels: the title, the axis titles, the tick labels, the
legend and the notes above the plot overlap nowhere and stay inside the chart.
"""

import os
from collections.abc import Iterator

import pytest
from debian_chromium import CHROMIUM

from labeldp_core.plots import projector_ready
from tests.plots.chart_samples import IN_COLUMNS, NAMED
from tests.plots.chart_text import Drawn, chart_drawer

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = [
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's Chromium"),
]


@pytest.fixture(scope="module")
def draw(tmp_path_factory: pytest.TempPathFactory, browser) -> Iterator:
    with chart_drawer(tmp_path_factory.mktemp("charts"), browser) as drawer:
        yield drawer


def _drawn(draw, name: str, width: int, demo: bool) -> Drawn:
    figure = (NAMED | IN_COLUMNS)[name]()
    options = ({"narrow": True} if width < 600 else {}) | ({"demo": True} if demo else {})
    return draw(projector_ready(figure, **options), width)


def _say(pairs) -> list[tuple[str, str, str, str]]:
    return [(a.kind, a.text[:30], b.kind, b.text[:30]) for a, b in pairs]


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
@pytest.mark.parametrize("width", [820, 1400])
@pytest.mark.parametrize("name", list(NAMED))
def test_no_chart_text_covers_another_or_is_cut(draw, name, width, demo):
    drawn = _drawn(draw, name, width, demo)
    assert _say(drawn.overlaps()) == []
    assert [(t.kind, t.text[:30]) for t in drawn.outside()] == []


@pytest.mark.parametrize("name", ["audit", "papers", "dpsgd_units"])
def test_the_legend_sits_below_the_x_axis_title_and_its_tick_labels(draw, name):
    drawn = _drawn(draw, name, 820, demo=False)
    (legend,) = drawn.of("legend_box")
    lowest = max(t.box[3] for t in drawn.texts if t.kind in ("axis_title", "tick"))
    assert legend.box[1] >= lowest


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_compare_names_its_lines_in_the_right_margin_without_a_legend(draw, demo):
    drawn = _drawn(draw, "compare", 820, demo)
    assert drawn.of("legend_box") == []
    ticks = drawn.of("tick")
    names = [t for t in drawn.of("annotation") if t.box[0] > max(t.box[2] for t in ticks) - 40]
    # the seven mechanisms with points (the sample's LP-2ST has none yet) and the clean line
    assert len(names) == 8


@pytest.mark.parametrize("name", ["laplace_vectors", "pate_agreement", "dpsgd_units"])
def test_the_title_sits_above_every_note_above_the_plot(draw, name):
    drawn = _drawn(draw, name, 820, demo=False)
    (title,) = drawn.of("title")
    notes = drawn.of("annotation")
    assert notes and all(title.box[3] <= note.box[1] for note in notes if note.box[1] < 150)


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
@pytest.mark.parametrize("name", list(IN_COLUMNS))
def test_charts_in_a_half_page_column_keep_their_text_apart_and_whole(draw, name, demo):
    drawn = _drawn(draw, name, 400, demo)
    assert _say(drawn.overlaps()) == []
    assert [(t.kind, t.text[:30]) for t in drawn.outside()] == []


def test_the_pate_x_titles_are_whole_and_apart(draw):
    drawn = _drawn(draw, "pate_agreement", 400, demo=True)
    first, second = sorted(drawn.of("axis_title", "top count"), key=lambda t: t.box[1])
    assert first.box[3] < second.box[1] and second.box[2] <= drawn.frame[2]
