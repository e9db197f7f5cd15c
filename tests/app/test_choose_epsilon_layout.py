"""The Choose ε page in a real browser at 1280x800 (issues 38 and 53): the answer is above the fold.

A Streamlit server on a cache holding the demo grid of every classification mechanism on digits
(stand-in results, see tests/choosing/fake_curves.py), driven by Playwright through Debian's
chromium at a projector's 1280x800: the answer per privacy unit, then the whole table of
answers, one row per mechanism and every column, is in the window without scrolling (issue 53:
three of nine columns were hidden behind the table's horizontal scroll bar). When nothing
reaches the target, the nearest answers that do are on the first screen.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import _open, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import MECHANISMS
from tests.choosing.fake_curves import store_grid

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

TABLE = "[data-testid='stDataFrame']"
#: The stand-in curves reach 0.65 (rr at ε ≈ 2.83); they reach no accuracy of 0.9, the default.
REACHED = "value=0.65"
#: How far the table's columns reach beyond what it shows (0: no horizontal scroll bar).
HIDDEN_WIDTH = """() => {
  const scroller = document.querySelector("[data-testid='stDataFrame'] .dvn-scroller");
  return scroller.scrollWidth - scroller.clientWidth;
}"""


def _warm(directory: Path) -> None:
    cache = ResultCache(directory)
    store_grid(cache, [m for m, spec in MECHANISMS.items() if spec.task == "classification"])
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


@pytest.fixture(scope="module")
def tabs(browser) -> Iterator:
    """One context at 1280x800 for the module's four pages, each left open until the last test:
    a page opened beside an open one of the same server finds the app's scripts compiled in its
    renderer process (``--process-per-site``, ``tests/debian_chromium.py``), about 2.5 s of
    Chromium's CPU less than a page in a context of its own."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    context.close()


def _bottom(page, selector: str, text: str) -> float:
    box = page.locator(selector, has_text=text).first.bounding_box()
    assert box is not None and box["y"] >= 0, (text, box)
    return box["y"] + box["height"]


@pytest.mark.parametrize("query", [f"?{REACHED}", f"?{REACHED}&demo=1"])
def test_the_answer_and_the_whole_table_of_answers_are_in_the_window(server, tabs, query):
    page = _open(tabs, f"{server}/choose_epsilon{query}")
    assert page.get_by_text("No curve of").count() == 0
    page.wait_for_selector(TABLE)
    assert _bottom(page, "li", "Label DP (protects one training label)") <= 800
    assert _bottom(page, TABLE, "") <= 800
    assert page.evaluate(HIDDEN_WIDTH) <= 0, "columns hidden behind a horizontal scroll bar"


@pytest.mark.parametrize("query", ["", "?demo=1"])
def test_when_nothing_reaches_the_nearest_answers_are_on_the_first_screen(server, tabs, query):
    page = _open(tabs, f"{server}/choose_epsilon{query}")
    page.wait_for_selector(TABLE)
    assert _bottom(page, "li", "A lower target:") <= 800
    assert page.locator(TABLE).first.bounding_box()["y"] < 800  # the table starts there
    assert page.evaluate(HIDDEN_WIDTH) <= 0
