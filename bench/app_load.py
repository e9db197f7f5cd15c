"""App under load: render times of the cached randomized-response page, 8 sessions at once vs 1.

Run: ``.venv/bin/python bench/app_load.py [--sessions 8] [--rounds 3] [--cache DIR]``. Warms a
cache with every result the page shows (rr on digits, logistic model, one epoch, the demo epsilon
grid), starts ``streamlit run app.py`` on a free loopback port and drives it with browser-less
websocket sessions (``tests/app_sessions.py``): each opens the link, then types epsilons from the
grid, ``rounds`` times over. The same sessions run first alone (one session) and then all at once,
in this one run on this machine. A render is timed from the request to "script finished"; the
script prints the slowest, 90th percentile and median for each case, the ratio of the two, and
checks that every render finished without an exception and showed the epsilon asked for.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from app_sessions import (  # noqa: E402
    EPSILON_SPENT,
    LOAD_EPSILONS,
    Render,
    browse_concurrently,
    first_visit,
    streamlit_server,
    warm_load_page,
)


def _check(sessions: list[list[Render]], epsilons: tuple[float, ...]) -> None:
    for renders in sessions:
        for render, epsilon in zip(renders, (1.0, *epsilons), strict=True):
            problem = (
                render.status != "FINISHED_SUCCESSFULLY"
                or render.exceptions
                or render.metrics.get(EPSILON_SPENT) != f"{epsilon:g}"
                or render.of_type("progress")
                or render.of_type("button")
            )
            if problem:
                sys.exit(f"a render went wrong at epsilon {epsilon:g}: {render.status}, "
                         f"{render.exceptions}, {render.metrics}")  # fmt: skip


def _summary(label: str, sessions: list[list[Render]]) -> tuple[float, float]:
    opens = [renders[0].seconds for renders in sessions]
    moves = [render.seconds for renders in sessions for render in renders[1:]]
    every = sorted(opens + moves)
    slowest, median = every[-1], statistics.median(every)
    p90 = every[min(len(every) - 1, int(0.9 * len(every)))]
    print(
        f"{label:<22} {len(every):>4} renders   slowest {slowest:6.2f} s   p90 {p90:6.2f} s   "
        f"median {median:6.2f} s   (opening the link: median {statistics.median(opens):.2f} s; "
        f"typing an epsilon: median {statistics.median(moves):.2f} s)"
    )
    return slowest, median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8, help="concurrent sessions")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the epsilons")
    parser.add_argument("--cache", type=Path, help="cache folder (default: a fresh temporary one)")
    args = parser.parse_args()
    epsilons = LOAD_EPSILONS * args.rounds
    with tempfile.TemporaryDirectory() as scratch:
        cache = args.cache or Path(scratch) / "cache"
        started = time.perf_counter()
        warm_load_page(cache)
        print(f"cache warmed in {time.perf_counter() - started:.1f} s ({cache})")
        with streamlit_server(cache) as port:
            first_visit(port)
            alone = browse_concurrently(port, 1, epsilons)
            together = browse_concurrently(port, args.sessions, epsilons)
    _check(alone, epsilons)
    _check(together, epsilons)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (1 min)")
    slow_1, median_1 = _summary("1 session", alone)
    slow_n, median_n = _summary(f"{args.sessions} sessions at once", together)
    print(
        f"{args.sessions} sessions vs 1: slowest render x{slow_n / slow_1:.1f}, "
        f"median render x{median_n / median_1:.1f}; every render finished without an exception "
        "and showed the epsilon asked for, from the cache"
    )


if __name__ == "__main__":
    main()
