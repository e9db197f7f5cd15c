"""The Choose ε page in a real browser at 1280x800 (issue 38): the answer is above the fold.

A Streamlit server on a cache holding the demo grid of every classification mechanism on digits
(stand-in results, see tests/choosing/fake_curves.py), driven by Playwright through Debian's
chromium at a projector's 1280x800: the whole table of answers, one row per mechanism, is in
the window without scrolling.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import _open, chromium_browser, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import MECHANISMS
from tests.choosing.fake_curves import store_grid

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

TABLE = "[data-testid='stDataFrame']"


def _warm(directory: Path) -> None:
    cache = ResultCache(directory)
    store_grid(cache, [m for m, spec in MECHANISMS.items() if spec.task == "classification"])
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


@pytest.mark.parametrize("query", ["", "?demo=1"])
def test_the_table_of_answers_is_in_the_window_without_scrolling(server, query):
    with chromium_browser() as chromium:
        context = chromium.new_context(viewport={"width": 1280, "height": 800})
        page = _open(context, f"{server}/choose_epsilon{query}")
        assert page.get_by_text("No curve of").count() == 0
        page.wait_for_selector(TABLE)
        box = page.locator(TABLE).first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
