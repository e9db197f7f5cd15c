"""The ε slider in a real browser (issue 36): on a warmed digits cache every stop answers.

A Streamlit server on a cache warmed for the pages with a computed ε grid (randomized response,
Laplace on labels, RR with prior, PATE; digits, logistic model, one epoch, seeds 0-2: PATE's
seed 0 trained, every other point a stand-in) as `warm` fills it: each page's own point at every
ε the slider stops at, and the curves beside it on the demo grid. Driven by Playwright through
Debian's chromium at 1280x800, as a projector shows it, each page's ε slider is stepped from its
first stop to its last with the keyboard, as a person drags it; no stop may show a button that
computes (a point, a sweep, PATE's teachers). Then the snapping choice is turned off and
followed across pages and into the address bar. By default the drags cover randomized response
(the standard grid and the class's stops) and PATE (a grid of its own), and the snapping choice
follows a page without it and two with it; the other drags and the tour of every page are
``slow`` (``make test-slow``), and only the pages dragged are warmed.
"""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_browser import IDLE, NAV_LINKS, _open, _stand_in_training, warmed_app

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import run
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, point_epsilons

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

HERE = Path(__file__)
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
#: The drags of the default suite (the others are slow).
DEFAULT_DRAGS = ("randomized_response", "pate")
#: The snapping tour of the default suite: a page without the choice, then two with it.
SNAP_TOUR = ("Papers vs this explorer", "PATE", "Randomized response")


def _warm(directory: Path, paths: set[str]) -> None:
    """What `warm` computes for ``paths``, on the logistic model for one epoch.

    PATE's stops are seed 0's points, really trained: with stand-in training (random teacher
    votes) its slider stepped from 2 back to 1 (the stops it reads depend on the runs it
    finds). Every other point need only be found (the other pages' stops are a fixed grid, and
    every page's curves are the mean over the demo seeds, so each gets every seed of its grid,
    as `warm` computes it): those are stand-ins (PATE's teachers on two more seeds took 30 s;
    RR's seed 0 trained, 5.4 s of CPU)."""
    cache = ResultCache(directory)
    for own, beside in (PAGES[path] for path in paths):
        # every stop (seed 0), the grid on every seed, the variants
        configs = demo_configs("digits", [own], DEMO_SEEDS, 1, "logistic")
        configs += demo_configs("digits", beside, DEMO_SEEDS, 1, "logistic", variants=False)
        trained = [c for c in configs if c.seed == 0 and c.mechanism == "pate"]
        for config in trained:
            run(config, cache)
        with _stand_in_training():
            for config in configs:
                if config not in trained:
                    run(config, cache)
    cache.close()


def _dragged(session: pytest.Session) -> set[str]:
    """The pages this run drags (as selected: ``-m slow`` or not), and the snapping tour's."""
    params = [getattr(item, "callspec", None) for item in session.items if item.path == HERE]
    asked = {p.params["path"] for p in params if p and "path" in p.params}
    return asked | set(DEFAULT_DRAGS)  # the snapping tour's pages (RR, PATE) are always warmed


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory) -> Iterator[str]:
    paths = _dragged(request.session)
    with warmed_app(tmp_path_factory, lambda directory: _warm(directory, paths)) as url:
        yield url


@pytest.fixture(scope="module")
def context(server: str, browser):
    return browser.new_context(viewport={"width": 1280, "height": 800})


def _ran_at_another_epsilon(page, before: str) -> None:
    """Wait until the page has run with an ε other than ``before`` and is idle again.

    The run writes its ε into the address bar before it draws; waiting on that, not on a fixed
    pause, cannot take the page still showing ``before`` for the next stop.
    """
    page.wait_for_function(
        "before => new URLSearchParams(location.search).get('epsilon') !== before", arg=before
    )
    page.wait_for_selector(IDLE)


@pytest.mark.parametrize(
    "path", [p if p in DEFAULT_DRAGS else pytest.param(p, marks=pytest.mark.slow) for p in PAGES]
)
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
        if len(seen) < len(stops):
            thumb.press("ArrowRight")
            _ran_at_another_epsilon(page, seen[-1])
    assert seen[0] == f"{min(stops):g}" and seen[-1] == f"{max(stops):g}", seen
    assert len(set(seen)) == len(stops), seen  # every stop visited once


@pytest.mark.parametrize(
    "tour",
    [SNAP_TOUR, pytest.param(None, marks=pytest.mark.slow)],
    ids=["three-pages", "every-page"],
)
def test_the_snapping_choice_survives_a_tour_of_every_page_and_the_address_bar(
    server, context, tour
):
    page = _open(context, f"{server}/randomized_response?{QUERY}")
    page.get_by_text("Computed ε only").click()
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE)
    assert "snap=false" in page.url
    links = NAV_LINKS
    titles = tour or [
        link.inner_text().strip().splitlines()[-1] for link in page.locator(links).all()
    ]
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
    if tour:
        assert drawn == list(tour[1:]), drawn  # the first page has no such choice
    else:
        assert len(drawn) >= 8, drawn  # every page whose ε has a computed grid
