"""Load: eight sessions at once on cached results keep answering, each with the view it asked for.

A real ``streamlit run`` server and eight browser-less websocket sessions (what eight open tabs
send) on the randomized-response page, every result of which is in the cache. Each session opens
the link and types several epsilons; every render must finish, show no exception and show the
result asked for straight from the cache (no progress bar, no button offering to compute).

The times are printed, not asserted: a speed limit in a test fails on a busy machine rather than
on slow code. ``bench/app_load.py`` measures them, eight sessions against one, in the same run.
"""

import statistics

from app_sessions import (
    EPSILON_SPENT,
    LOAD_EPSILONS,
    browse_concurrently,
    streamlit_server,
    warm_load_page,
)

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config

SESSIONS = 8


def test_eight_concurrent_sessions_on_cached_results_keep_answering(tmp_path):
    served = tmp_path / "served"  # not the default cache of the test (conftest's tmp_path/cache)
    warm_load_page(served)
    with streamlit_server(served) as port:
        browse_concurrently(port, 1, ())  # the server's first run imports the libraries
        sessions = browse_concurrently(port, SESSIONS, LOAD_EPSILONS)
    assert len(sessions) == SESSIONS
    for renders in sessions:
        assert len(renders) == 1 + len(LOAD_EPSILONS)
        for render, epsilon in zip(renders, (1.0, *LOAD_EPSILONS), strict=True):
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


def test_an_empty_cache_passed_in_is_the_cache_used(tmp_path, cache):
    # An empty ResultCache is falsy (it has a length), and `cache or ResultCache()` once sent
    # every result of a fresh cache to the default folder instead: the load test found it.
    config = make_config("rr", "digits", 1.0, epochs=1)
    cache.put_json(cache.key("result", config.to_dict()), {"stored": "in the default cache"})
    mine = ResultCache(tmp_path / "mine")
    try:
        assert len(mine) == 0
        assert lookup(config, mine) is None
    finally:
        mine.close()
