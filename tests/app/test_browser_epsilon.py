"""The ε slider in a real browser (issue 36): on a warmed digits cache every stop answers.

A Streamlit server on a cache warmed for the pages with a computed ε grid (randomized response,
Laplace on labels, RR with prior, PATE; digits, logistic model, one epoch, seed 0) as `warm`
fills it: each page's own point at every ε the slider stops at, and the curves beside it on the
demo grid. Driven by Playwright through Debian's chromium at 1280x800, as a projector shows it,
each page's ε slider is stepped from its first stop to its last with the keyboard, as a person
drags it; no stop may show a button that computes (a point, a sweep, PATE's teachers). Then the
snapping choice is turned off and followed across pages and into the address bar.
"""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import IDLE, NAV_LINKS, _open, chromium_browser, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.demo import demo_configs, point_epsilons
from labeldp_core.experiments import run

QUERY = "epochs=1&model=logistic"
#: Every button that starts a computation: a page's point, a sweep, the teachers, missing points.
COMPUTES = re.compile(r"^(Compute|Run|Train)\b")
#: Each page with a computed ε grid: its path, the mechanism whose points are its stops, and the
#: mechanisms drawn beside it on the demo grid.
PAGES = {
    "randomized_response": ("rr", ()),
    "laplace_labels": ("laplace", ("alibi", "laplace-regression", "rr-bins")),
    "rr_prior": ("rr-prior", ("rr", "lp-2st")),
    "pate": ("pate", ()),
}


def _warm(directory: Path) -> None:
    """What `warm` computes for these pages, on the logistic model for one epoch, seed 0."""
    cache = ResultCache(directory)
    for own, beside in PAGES.values():
        configs = demo_configs("digits", [own], (0,), 1, "logistic")  # every stop, the variants
        configs += demo_configs("digits", beside, (0,), 1, "logistic", variants=False)
        for config in configs:
            run(config, cache)
    cache.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with warmed_app(tmp_path_factory, _warm) as url:
        yield url


@pytest.fixture(scope="module")
def context(server: str):
    with chromium_browser() as chromium:
        yield chromium.new_context(viewport={"width": 1280, "height": 800})


@pytest.mark.parametrize("path", list(PAGES))
def test_dragging_the_slider_across_its_whole_range_never_shows_a_compute_button(
    server, context, path
):
    stops = point_epsilons(PAGES[path][0], "digits")
    page = _open(context, f"{server}/{path}?{QUERY}&epsilon={min(stops):g}")
    seen = []
    for _ in stops:
        # the page's ε control, not a sidebar slider (RR with prior's share of ε)
        thumb = page.locator("[data-testid='stSlider']", has_text="(log scale)").get_by_role(
            "slider"
        )
        seen.append(thumb.get_attribute("aria-valuetext"))
        assert page.get_by_role("button", name=COMPUTES).count() == 0, seen[-1]
        thumb.press("ArrowRight")
        page.wait_for_timeout(300)  # the rerun starts
        page.wait_for_selector(IDLE)
    assert seen[0] == f"{min(stops):g}" and seen[-1] == f"{max(stops):g}", seen
    assert len(set(seen)) == len(stops), seen  # every stop visited once


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
