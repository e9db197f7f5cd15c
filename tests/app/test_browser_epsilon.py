"""The ε slider in a real browser (issue 36): on a warmed digits cache every stop answers.

A Streamlit server on a cache warmed for the randomized response page (digits, logistic model,
one epoch, seed 0), driven by Playwright through Debian's chromium at 1280x800, as a projector
shows it. The slider is stepped from its first stop to its last with the keyboard, as a person
drags it; no stop may show a compute button. Then the snapping choice is turned off and
followed across pages and into the address bar.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import IDLE, NAV_LINKS, _open, chromium_browser, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.demo import point_epsilons
from labeldp_core.experiments import make_config, run

QUERY = "epochs=1&model=logistic"
COMPUTE = "Compute ε"


def _warm(directory: Path) -> None:
    cache = ResultCache(directory)
    for epsilon in point_epsilons("rr", "digits"):
        run(make_config("rr", "digits", epsilon, 0, 1, {"model": "logistic"}), cache)
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


@pytest.fixture(scope="module")
def context(server: str):
    with chromium_browser() as chromium:
        yield chromium.new_context(viewport={"width": 1280, "height": 800})


def test_dragging_the_slider_across_its_whole_range_never_shows_a_compute_button(server, context):
    page = _open(context, f"{server}/randomized_response?{QUERY}&epsilon=0.1")
    stops = len(point_epsilons("rr", "digits"))
    seen = []
    for _ in range(stops):
        thumb = page.get_by_role("slider").first
        seen.append(thumb.get_attribute("aria-valuetext"))
        assert page.get_by_role("button", name=COMPUTE).count() == 0, seen[-1]
        thumb.press("ArrowRight")
        page.wait_for_timeout(300)  # the rerun starts
        page.wait_for_selector(IDLE)
    assert seen[0] == "0.1" and seen[-1] == f"{max(point_epsilons('rr', 'digits')):g}", seen
    assert len(set(seen)) == stops, seen  # every stop visited once


def test_the_snapping_choice_survives_a_tour_of_every_page_and_the_address_bar(server, context):
    page = _open(context, f"{server}/randomized_response?{QUERY}")
    page.get_by_text("Computed ε only").click()
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE)
    assert "snap=false" in page.url
    links = NAV_LINKS
    titles = [link.inner_text().strip().splitlines()[-1] for link in page.locator(links).all()]
    drawn = []
    for title in titles:
        page.locator(links).filter(has_text=title).first.click()
        page.wait_for_timeout(300)
        page.wait_for_selector(IDLE)
        box = page.get_by_role("checkbox", name="Computed ε only")
        if box.count():
            assert not box.is_checked(), title
            assert "snap=false" in page.url, title
            drawn.append(title)
    assert len(drawn) >= 8, drawn  # every page whose ε has a computed grid
