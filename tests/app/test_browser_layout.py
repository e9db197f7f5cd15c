"""The projector layout in a real browser (issue 36, item 2): ε control and headline chart in view.

A Streamlit server on a small warmed digits cache (each page's point at ε = 1: logistic model,
one epoch, seed 0), driven by Playwright through Debian's chromium at 1280x800, as a projector
shows it. One tab follows the app's own navigation over every mechanism page and the two pages
on ε, in the default and in demo mode's larger type, and checks, with bounding boxes and without
scrolling, that the ε slider and the page's first chart both lie inside the window. *Compare*
must open on its chart, on a second server whose cache holds the demo grid of every mechanism it
draws (stand-in results): the control and the whole chart, each line named at its end, fit in
the window in both modes.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import IDLE, NAV_LINKS, _open, chromium_browser, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.engine.public_encoder import ENCODER_MODELS
from labeldp_core.experiments import MECHANISMS, make_config, run
from labeldp_core.plots.compare import short_name
from labeldp_core.registry import ON_COMPARE
from tests.choosing.fake_curves import store_grid

WIDTH, HEIGHT = 1280, 800
QUERY = "epochs=1&model=logistic&epsilon=1"
#: Navigation titles of the pages with an ε control and one headline chart under it.
MECHANISM_PAGES = (
    "Randomized response",
    "RR with prior",
    "Laplace noise",
    "Laplace on labels",
    "Noisy model outputs (local DP)",
    "PATE",
    "DP-SGD baseline",
    "DP prototypes",
)
#: The pages that explain ε, each with its headline chart under the ε control too.
EPSILON_PAGES = ("What ε means", "Privacy audit")
#: Charts draw after the script has finished, behind a skeleton, once Plotly's bundle loads.
CHARTS_DRAWN = (
    "() => !document.querySelector(\"[data-testid='stSkeleton']\") && "
    "[...document.querySelectorAll(\"[data-testid='stPlotlyChart']\")]"
    ".every(chart => chart.querySelector('.main-svg'))"
)
EPSILON_SLIDER = "[data-testid='stSlider']"
CHART = "[data-testid='stPlotlyChart']"


def _warm(directory: Path) -> None:
    """Each page's point at ε = 1, so no compute button comes between control and chart."""
    cache = ResultCache(directory)
    for mechanism in ("rr", "rr-prior", "laplace", "softmax-laplace", "pate", "dpsgd"):
        run(make_config(mechanism, "digits", 1.0, 0, 1, {"model": "logistic"}), cache)
    dppl = {"model": ENCODER_MODELS[0], "imbalance": 10.0}  # the page's encoder for 'logistic'
    run(make_config("dppl-mean", "digits", 1.0, 0, 1, dppl), cache)
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


@pytest.fixture(scope="module")
def browser(server: str):
    with chromium_browser() as chromium:
        yield chromium


def _go(page, title: str) -> None:
    """Click ``title`` in the app's navigation and wait until its charts are drawn."""
    page.locator(NAV_LINKS).filter(has_text=title).first.click()
    page.get_by_role("heading", level=1).filter(has_text=title.split(" (")[0]).wait_for()
    page.wait_for_timeout(300)  # the rerun starts
    page.wait_for_selector(IDLE)
    page.wait_for_function(CHARTS_DRAWN)


def _span(page, selector: str, **kwargs) -> tuple[float, float]:
    """Top and bottom in px, in the window, of the first element ``selector`` finds."""
    box = page.locator(selector, **kwargs).first.bounding_box()
    assert box is not None, selector
    return box["y"], box["y"] + box["height"]


def _tour(browser, server: str, demo: bool) -> dict[str, tuple]:
    """Every mechanism page's (slider span, first chart span, scroll offset), one tab."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = _open(context, f"{server}/randomized_response?{QUERY}" + "&demo=1" * demo)
    seen = {}
    for title in MECHANISM_PAGES + EPSILON_PAGES:
        _go(page, title)
        slider = _span(page, EPSILON_SLIDER, has_text="(log scale)")
        seen[title] = (slider, _span(page, CHART), page.evaluate("window.scrollY"))
    context.close()
    return seen


def _outside(seen: dict[str, tuple]) -> dict[str, tuple]:
    return {
        title: (slider, chart)
        for title, (slider, chart, scrolled) in seen.items()
        if scrolled or min(slider[0], chart[0]) < 0 or max(slider[1], chart[1]) > HEIGHT
    }


def test_every_mechanism_page_shows_the_epsilon_control_and_its_chart_without_scrolling(
    server, browser
):
    seen = _tour(browser, server, demo=False)
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


@pytest.mark.parametrize("demo", [False, True], ids=["default", "demo"])
def test_compare_opens_on_its_chart_of_every_mechanism_and_both_fit(compare_server, browser, demo):
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = _open(context, f"{compare_server}/randomized_response" + "?demo=1" * demo)
    _go(page, "Compare mechanisms")
    slider = _span(page, EPSILON_SLIDER, has_text="(log scale)")
    chart = _span(page, CHART)
    intro_top = _span(page, "[data-testid='stMain'] p", has_text="Every mechanism on the same")[0]
    names = page.locator(f"{CHART} .annotation-text-g").all_text_contents()
    scrolled = page.evaluate("window.scrollY")
    context.close()
    assert not scrolled and slider[0] >= 0 and slider[1] <= chart[0], (slider, chart)
    assert chart[1] <= HEIGHT, chart  # the whole chart, its names at the lines' ends included
    assert intro_top > chart[0]  # the paragraph comes after the chart
    drawn = {"".join(name.split()) for name in names}  # a wrapped name's lines run together
    named = {"".join(short_name(MECHANISMS[m].title).split()) for m in ON_COMPARE}
    assert named <= drawn, drawn


def test_in_demo_mode_the_epsilon_control_and_its_chart_fit_on_every_page_too(server, browser):
    seen = _tour(browser, server, demo=True)
    assert not _outside(seen), seen
    for title, (slider, chart, _) in seen.items():
        assert slider[1] <= chart[0], title
