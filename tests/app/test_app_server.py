"""The app on a real ``streamlit run`` server, driven by browser-less websocket sessions.

Load: eight sessions at once (what eight open tabs send) on the randomized-response page, every
result of which is in the cache. Each session opens the link and types several epsilons; every
render must finish, show no exception and show the result asked for straight from the cache (no
progress bar, no button offering to compute). The times are printed, not asserted: a speed limit
in a test fails on a busy machine rather than on slow code. ``bench/app_load.py`` measures them,
eight sessions against one, in the same run.

Bad links: the server reports every link value a control refused and keeps the rest of the page,
the way a browser sees it on its first render of the link.
"""

import asyncio
import statistics
from collections.abc import Iterator

import pytest
from app_sessions import (
    EPSILON_SPENT,
    LOAD_EPSILONS,
    Session,
    browse_concurrently,
    first_visit,
    streamlit_server,
    warm_load_page,
)
from test_browser import _stand_in_training

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config
from labeldp_core.experiments.runner import result_key

# One worker of `pytest -n` runs every browser test: one Chromium and one server at a time.
pytestmark = pytest.mark.xdist_group("browser")

SESSIONS = 8
#: Typed by each session after opening the link: fewer than the benchmark's, same scenario.
EPSILONS = LOAD_EPSILONS[:2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A server on a cache that holds every result of the load scenario; yields its port.

    The results come from stand-in training (``test_browser._stand_in_training``): the tests
    read ε spent and whether a page computes, not what a model learnt (3 s to warm, not 14).
    """
    cache = tmp_path_factory.mktemp("served")
    with _stand_in_training():
        warm_load_page(cache)
    with streamlit_server(cache) as port:
        first_visit(port)
        yield port


def test_eight_concurrent_sessions_on_cached_results_keep_answering(server):
    sessions = browse_concurrently(server, SESSIONS, EPSILONS)
    assert len(sessions) == SESSIONS
    for renders in sessions:
        assert len(renders) == 1 + len(EPSILONS)
        for render, epsilon in zip(renders, (1.0, *EPSILONS), strict=True):
            assert render.status == "FINISHED_SUCCESSFULLY"
            assert not render.exceptions, render.exceptions
            assert render.metrics[EPSILON_SPENT] == f"{epsilon:g}"
            assert not render.of_type("progress"), "a cached page must not compute"
            assert not render.of_type("button"), "every point of the page must be cached"
    times = [render.seconds for renders in sessions for render in renders]
    print(
        f"{SESSIONS} concurrent sessions, {len(times)} renders: slowest {max(times):.2f} s, "
        f"median {statistics.median(times):.2f} s"
    )


def test_a_bad_link_shows_one_error_per_refused_value_and_the_page(server):
    link = "epsilon=-1&seed=-5&dataset=cifar&sensitivity=-3&magnitude=2"

    async def visit() -> tuple:
        async with Session(server, "laplace_noise", link) as session:
            first = await session.render()
            moved = await session.set_number(first.widget_id("number_input", "epsilon"), 2.0)
        return first, moved

    first, moved = asyncio.run(visit())
    assert first.status == "FINISHED_SUCCESSFULLY" and not first.exceptions
    assert "Laplace noise" in first.headings
    refused = ("epsilon=`-1`", "seed=`-5`", "dataset=`cifar`", "sensitivity=`-3`")
    assert sorted(e.split(",")[0].removeprefix("The link sets ") for e in first.errors) == sorted(
        refused
    )
    assert any("greater than 0" in e for e in first.errors)
    # Typing an epsilon settles that value; the other refused values are still reported.
    assert not moved.exceptions and "Laplace noise" in moved.headings
    assert "Data and model" in moved.headings, "the shared sidebar must stay"
    assert sorted(e.split(",")[0].removeprefix("The link sets ") for e in moved.errors) == sorted(
        refused[1:]
    )


def test_an_empty_cache_passed_in_is_the_cache_used(tmp_path, cache):
    # An empty ResultCache is falsy (it has a length), and `cache or ResultCache()` once sent
    # every result of a fresh cache to the default folder instead: the load test found it.
    config = make_config("rr", "digits", 1.0, epochs=1)
    cache.put_json(result_key(cache, config), {"stored": "in the default cache"})
    mine = ResultCache(tmp_path / "mine")
    try:
        assert len(mine) == 0
        assert lookup(config, mine) is None
    finally:
        mine.close()


@pytest.mark.slow
def test_eight_students_on_one_cold_point_share_one_training(tmp_path):
    # Eight tabs open the same uncached demo-grid point at once on a server with a worker: the
    # point is trained once (one measured time is recorded), and all eight see the same number.
    from app_sessions import served_app

    from labeldp_core.engine.timing import timing_key

    async def one(port: int):
        async with Session(port, "randomized_response", "dataset=digits&epsilon=1") as session:
            return await session.render()

    async def eight(port: int):
        return await asyncio.gather(*(one(port) for _ in range(SESSIONS)))

    with served_app(tmp_path, LABELDP_WORKERS="1") as server:
        first_visit(server.port)
        renders = asyncio.run(eight(server.port))
    assert all(r.status == "FINISHED_SUCCESSFULLY" and not r.exceptions for r in renders)
    shown = {r.metrics["Test accuracy"] for r in renders}
    cache = ResultCache(tmp_path)
    try:
        config = make_config("rr", "digits", 1.0)
        assert shown == {f"{lookup(config, cache).test_accuracy:.3f}"}
        assert len(cache.get_json(timing_key(cache, config))["seconds"]) == 1
    finally:
        cache.close()
