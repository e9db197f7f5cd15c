"""The projector layout in a real browser (issue 36, item 2): ε control and headline chart in view.

A Streamlit server on a small warmed digits cache (each family page's first view at ε = 1, as
the app asks for it with ``model=logistic&epochs=1`` and in demo mode; stand-in training, see
``_stand_in_training``), driven by Playwright through Debian's chromium at 1280x800, as a
projector shows it. One tab follows the app's own navigation over every family's page (from the
registry: a new family's page is toured with no edit here) and the pages on ε, in the default and
in demo mode's larger type, and checks, with bounding boxes and without scrolling, that the ε
slider and the page's first chart both lie inside the window. By default demo mode's tour visits
the first family's page and the pages on ε; every page in demo mode is ``slow``
(``make test-slow``). *Compare* must open on its chart, on a second server whose cache holds the
demo grid of every mechanism it draws (stand-in results): the control and the whole chart, each
line named at its end, fit in the window in both modes.
"""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import (
    IDLE,
    NAV_LINKS,
    _open,
    _stand_in_training,
    warmed_app,
)

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import MECHANISMS, run
from labeldp_core.experiments.demo import demo_configs
from labeldp_core.plots.compare import short_name
from labeldp_core.registry import ON_COMPARE, pages
from tests.choosing.fake_curves import store_grid

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

WIDTH, HEIGHT = 1280, 800
QUERY = "epochs=1&model=logistic&epsilon=1"
#: Navigation titles of the pages with an ε control and one headline chart under it: every
#: family's page, from the registry, and Laplace noise, which no family owns.
MECHANISM_PAGES = (*(page.title for _, page in pages()), "Laplace noise")
#: The pages that explain ε, each with its headline chart under the ε control too.
EPSILON_PAGES = ("What ε means", "Privacy audit")
#: Demo mode's tour in the default suite: one family's page and the pages on ε (all: slow).
DEMO_PAGES = (MECHANISM_PAGES[0], *EPSILON_PAGES)
#: Pages known to put their chart below the window, with why: the test fails when one fits again
#: (remove it here) as when another stops fitting.
KNOWN_OFF_SCREEN: dict[str, str] = {}
#: Charts draw after the script has finished, behind a skeleton, once Plotly's bundle loads.
CHARTS_DRAWN = (
    "() => !document.querySelector(\"[data-testid='stSkeleton']\") && "
    "[...document.querySelectorAll(\"[data-testid='stPlotlyChart']\")]"
    ".every(chart => chart.querySelector('.main-svg'))"
)
EPSILON_SLIDER = "[data-testid='stSlider']"
CHART = "[data-testid='stPlotlyChart']"
#: How long a page whose run has ended may take to draw its chart before the test shows why not.
CHART_WAIT_MS = 30_000


def warm_first_views(directory: Path) -> None:
    """Each family page's first view at ε = 1, so no compute button comes between control and
    chart: its first mechanism's demo points there (the variants the page puts side by side), on
    the logistic model for one epoch and as demo mode asks (default model and epochs), seed 0."""
    cache = ResultCache(directory)
    with _stand_in_training():
        for family, _ in pages():
            mechanism = family.mechanisms[0].id
            for epochs, model in ((1, "logistic"), (None, None)):
                configs = demo_configs(
                    "digits", [mechanism], (0,), epochs, model, class_stops=False
                )
                for config in configs:
                    if config.epsilon == 1.0:
                        run(config, cache)
    cache.close()


@pytest.fixture(scope="module")
def server(layout_server: str) -> str:
    """The server on the first views' cache, shared with test_browser_phone.py."""
    return layout_server


def _go(page, title: str) -> None:
    """Click ``title`` in the app's navigation and wait until its charts are drawn.

    The new page's heading is drawn by its run: once it shows, that run has started. Only when
    the heading shown already matches (the same page, or a title inside this one: "Randomized
    response" in "Vector randomized response") is the rerun given 300 ms to start.
    """
    heading = page.get_by_role("heading", level=1).filter(has_text=title.split(" (")[0])
    shown = heading.count() > 0
    page.locator(NAV_LINKS).filter(has_text=title).first.click()
    heading.wait_for()
    if shown:
        page.wait_for_timeout(300)  # the rerun starts
    page.wait_for_selector(IDLE)
    page.wait_for_function(CHARTS_DRAWN)


def _assert_charted(page, title: str) -> None:
    """Fail, showing what the page drew, when its run ended with no chart.

    A page drawn from the warmed cache has its chart once its run ends; without one it shows a
    compute button or an error instead, which a bare wait for the chart timed out on (120 s)
    without saying which.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.locator(CHART).first.wait_for(timeout=CHART_WAIT_MS)
    except PlaywrightTimeout:
        shown = page.locator("[data-testid='stMain']").inner_text()[:1500]
        raise AssertionError(f"{title!r} drew no chart; {page.url} shows:\n{shown}") from None


def _span(page, selector: str, **kwargs) -> tuple[float, float]:
    """Top and bottom in px, in the window, of the first element ``selector`` finds."""
    box = page.locator(selector, **kwargs).first.bounding_box()
    assert box is not None, selector
    return box["y"], box["y"] + box["height"]


@pytest.fixture(scope="module")
def tabs(server: str, browser) -> Iterator[Callable[[bool], Any]]:
    """``tabs(demo)``: the mode's one tab at 1280x800, opened once on RR's page at ε = 1.

    Opening a page starts a session and loads the app's scripts (tens of seconds under load); a
    click in the app's navigation only reruns the script. The tours and the checks of one page
    below move through the app in their mode's tab, as a person does. Both tabs are in one
    context (demo mode is the link's): the second runs in the first's renderer process
    (``--process-per-site``, ``tests/debian_chromium.py``), with the app's scripts compiled.
    """
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    opened: dict[bool, Any] = {}

    def tab(demo: bool):
        if demo not in opened:
            url = f"{server}/randomized_response?{QUERY}" + "&demo=1" * demo
            opened[demo] = _open(context, url)
        return opened[demo]

    yield tab
    context.close()


def _tour(page, titles: tuple[str, ...]) -> dict[str, tuple]:
    """Each of ``titles``' (slider span, first chart span, scroll offset), in one tab."""
    seen = {}
    for title in titles:
        _go(page, title)
        _assert_charted(page, title)
        slider = _span(page, EPSILON_SLIDER, has_text="(log scale)")
        seen[title] = (slider, _span(page, CHART), page.evaluate("window.scrollY"))
    return seen


def _outside(seen: dict[str, tuple]) -> dict[str, tuple]:
    """The pages whose control or chart is not wholly in the window, less the known ones; and
    any known one that fits now, so that its entry is removed."""
    outside = {
        title: (slider, chart)
        for title, (slider, chart, scrolled) in seen.items()
        if scrolled or min(slider[0], chart[0]) < 0 or max(slider[1], chart[1]) > HEIGHT
    }
    fixed = {title: "fits now" for title in KNOWN_OFF_SCREEN.keys() & seen.keys() - outside.keys()}
    return {t: span for t, span in outside.items() if t not in KNOWN_OFF_SCREEN} | fixed


def test_every_mechanism_page_shows_the_epsilon_control_and_its_chart_without_scrolling(tabs):
    seen = _tour(tabs(False), MECHANISM_PAGES + EPSILON_PAGES)
    assert not _outside(seen), seen
    for title, (slider, chart, _) in seen.items():
        assert slider[1] <= chart[0], title  # the chart sits under the control


@pytest.fixture(scope="module")
def compare_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose cache holds the demo grid of every mechanism Compare draws (stand-ins)."""

    def warm(directory: Path) -> None:
        cache = ResultCache(directory)
        store_grid(cache, list(ON_COMPARE))
        cache.close()

    with warmed_app(tmp_path_factory, warm) as url:
        yield url


@pytest.fixture(scope="module")
def compare_tabs(compare_server: str, browser) -> Iterator:
    """One context at 1280x800 for Compare's two pages, the first left open beside the second:
    it then runs in the first's renderer process, with the app's scripts compiled."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    yield context
    context.close()


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_compare_opens_on_its_chart_of_every_mechanism_and_both_fit(
    compare_server, compare_tabs, demo
):
    page = _open(compare_tabs, f"{compare_server}/randomized_response" + "?demo=1" * demo)
    _go(page, "Compare mechanisms")
    slider = _span(page, EPSILON_SLIDER, has_text="(log scale)")
    chart = _span(page, CHART)
    intro_top = _span(page, "[data-testid='stMain'] p", has_text="Every mechanism on the same")[0]
    names = page.locator(f"{CHART} .annotation-text-g").all_text_contents()
    scrolled = page.evaluate("window.scrollY")
    assert not scrolled and slider[0] >= 0 and slider[1] <= chart[0], (slider, chart)
    assert chart[1] <= HEIGHT, chart  # the whole chart, its names at the lines' ends included
    assert intro_top > chart[0]  # the paragraph comes after the chart
    drawn = {"".join(name.split()) for name in names}  # a wrapped name's lines run together
    named = {"".join(short_name(MECHANISMS[m].title).split()) for m in ON_COMPARE}
    assert named <= drawn, drawn


@pytest.mark.parametrize(
    "titles",
    [DEMO_PAGES, pytest.param(MECHANISM_PAGES + EPSILON_PAGES, marks=pytest.mark.slow)],
    ids=["first-and-epsilon-pages", "every-page"],
)
def test_in_demo_mode_the_epsilon_control_and_its_chart_fit_on_every_page_too(tabs, titles):
    seen = _tour(tabs(True), titles)
    assert set(seen) == set(titles)
    assert not _outside(seen), seen
    for title, (slider, chart, _) in seen.items():
        assert slider[1] <= chart[0], title


def _area(a: dict, b: dict) -> float:
    """The area two boxes share, in px²."""
    wide = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    tall = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(wide, 0) * max(tall, 0)


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_what_epsilon_means_measured_guesses_keep_their_texts_apart(tabs, demo):
    # Issue 53: the y axis's title ran over the chart's title, the bound ticks crossed the
    # values written at the bars' tops (0.16, 0.12), and the last group's name was not drawn.
    page = tabs(demo)
    _go(page, "What ε means")
    chart = page.locator(CHART).filter(has_text="Measured guesses").first
    chart.scroll_into_view_if_needed()

    def boxes(selector: str) -> list[dict]:
        return [b for b in (e.bounding_box() for e in chart.locator(selector).all()) if b]

    title, y_title = boxes(".gtitle")[0], boxes(".ytitle")[0]
    values, ticks = boxes(".barlayer text"), boxes(".scatterlayer .point")
    names = chart.locator(".xtick text").all_text_contents()
    groups = len(chart.locator(".barlayer .trace").first.locator(".point").all())
    assert _area(title, y_title) == 0, (title, y_title)
    crossed = [(v, t) for v in values for t in ticks if _area(v, t) > 2]
    assert not crossed, crossed
    assert groups >= 2 and len([n for n in names if n.strip()]) == groups, names


#: Each line of a chart (its SVG path) sampled at 300 points, in the window's px.
LINE_POINTS = """chart => [...chart.querySelectorAll('.scatterlayer path.js-line')].map(path => {
  const matrix = path.getScreenCTM(), length = path.getTotalLength(), points = [];
  for (let i = 0; i <= 300; i++) {
    const p = path.getPointAtLength(length * i / 300);
    const x = matrix.a * p.x + matrix.c * p.y + matrix.e;
    points.push([x, matrix.b * p.x + matrix.d * p.y + matrix.f]);
  }
  return points;
})"""
#: Every element of a navigation link whose text is wider than the room it is shown in.
CUT_NAV = f"""() => [...document.querySelectorAll("{NAV_LINKS}")].flatMap(link =>
  [link, ...link.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(() => link.innerText.trim()))"""


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_the_rr_note_on_a_random_guess_crosses_no_curve_and_no_menu_title_is_cut(tabs, demo):
    # Issue 53: "1/K = 0.10 (a random guess)" was written across the flip curve, and in demo
    # mode's larger type the menu cut "Noisy model outputs (lo" and "Vector randomized respo".
    page = tabs(demo)
    _go(page, "Randomized response")
    chart = page.locator(CHART).first
    chart.locator(".annotation", has_text="1/K").first.wait_for()
    note = chart.locator(".annotation", has_text="1/K").first.bounding_box()
    lines = chart.evaluate(LINE_POINTS)
    page.locator(NAV_LINKS).last.wait_for()
    cut = set(page.evaluate(CUT_NAV))
    inside = [
        (x, y)
        for line in lines
        for x, y in line
        if note["x"] <= x <= note["x"] + note["width"]
        and note["y"] <= y <= note["y"] + note["height"]
    ]
    assert len(lines) >= 2 and not inside, (note, inside[:5])
    assert not cut, cut
