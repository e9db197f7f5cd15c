"""App under load: render times of the cached randomized-response page, 8 sessions at once vs 1.

Run: ``.venv/bin/python bench/app_load.py [--sessions 8] [--rounds 3] [--cache DIR]``. Warms a
cache with every result the page shows (rr on digits, logistic model, one epoch, the demo epsilon
grid), starts ``streamlit run app.py`` on a free loopback port and drives it with browser-less
websocket sessions (``tests/app/app_sessions.py``): each opens the link, then types epsilons from
the grid, ``rounds`` times over. The same sessions run first alone (one session) and then all at
once, in this one run on this machine. A render is timed from the request to "script finished"; the
script prints the slowest, 90th percentile and median for each case, the ratio of the two, and
checks that every render finished without an exception and showed the epsilon asked for.
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app")]

from app_sessions import (  # noqa: E402
    EPSILON_SPENT,
    LOAD_EPSILONS,
    LOAD_PAGE,
    Render,
    Session,
    browse_concurrently,
    first_visit,
    served_app,
    warm_load_page,
)

from labeldp_core.experiments.demo import CLASS_EPSILONS  # noqa: E402
from labeldp_core.experiments.service import resident_mb  # noqa: E402

#: Cold points: each session opens the page on its own uncached point of the demo grid (what
#: a page computes without a click), with the page's default model and epochs.
COLD_QUERY = "dataset=digits&epsilon={epsilon}"
COLD_EPSILONS = CLASS_EPSILONS


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(pid: int, seconds: float) -> float:
    """Cores the server process uses while one visitor's page sits idle, over ``seconds``."""
    before, started = _cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (_cpu_seconds(pid) - before) / (time.monotonic() - started)


def cold_points(sessions: int, **env: str) -> tuple[list[float], float]:
    """Seconds until each of ``sessions`` simultaneous visitors sees its own uncached point.

    Returns:
        Those seconds, sorted, and the server process's resident memory afterwards (MB).
    """

    async def one(port: int, epsilon: float) -> float:
        query = COLD_QUERY.format(epsilon=epsilon)
        async with Session(port, LOAD_PAGE, query) as session:
            render = await session.render()
        if render.status != "FINISHED_SUCCESSFULLY" or render.exceptions or not render.metrics:
            sys.exit(f"a cold point went wrong at epsilon {epsilon}: {render.exceptions}")
        return render.seconds

    async def all_of_them(port: int) -> list[float]:
        return await asyncio.gather(*(one(port, e) for e in COLD_EPSILONS[:sessions]))

    with tempfile.TemporaryDirectory() as scratch, served_app(Path(scratch), **env) as server:
        first_visit(server.port)
        seconds = sorted(asyncio.run(all_of_them(server.port)))
        return seconds, resident_mb(server.process.pid)


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
                sys.exit(
                    f"a render went wrong at epsilon {epsilon:g}: {render.status}, "
                    f"{render.exceptions}, {render.metrics}"
                )


def _summary(label: str, sessions: list[list[Render]]) -> tuple[float, float]:
    opens = [renders[0].seconds for renders in sessions]
    moves = [render.seconds for renders in sessions for render in renders[1:]]
    every = sorted(opens + moves)
    slowest, median = every[-1], statistics.median(every)
    p95 = every[min(len(every) - 1, int(0.95 * len(every)))]
    print(
        f"{label:<22} {len(every):>4} renders   slowest {slowest:6.2f} s   p95 {p95:6.2f} s   "
        f"median {median:6.2f} s   (opening the link: median {statistics.median(opens):.2f} s; "
        f"typing an epsilon: median {statistics.median(moves):.2f} s)"
    )
    return slowest, median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8, help="concurrent sessions")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the epsilons")
    parser.add_argument("--cache", type=Path, help="cache folder (default: a fresh temporary one)")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle CPU measured")
    parser.add_argument("--cold", type=int, default=8, help="visitors on cold points (0: skip)")
    args = parser.parse_args()
    if args.cold:
        _cold_figures(args.cold)
    epsilons = LOAD_EPSILONS * args.rounds
    with tempfile.TemporaryDirectory() as scratch:
        cache = args.cache or Path(scratch) / "cache"
        started = time.perf_counter()
        warm_load_page(cache)
        print(f"cache warmed in {time.perf_counter() - started:.1f} s ({cache})")
        with served_app(cache) as server:
            port = server.port
            first_visit(port)
            idle = idle_cpu(server.process.pid, args.idle)
            print(f"idle server, one visitor's page open: {idle:.3f} cores over {args.idle:g} s")
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


def _cold_figures(sessions: int) -> None:
    """Cold points computed in the page's thread (the old way) against the compute service."""
    threads = str(os.cpu_count() or 1)
    cases = {
        "in the page, default threads": {"LABELDP_WORKERS": "0", "OMP_NUM_THREADS": threads},
        "compute service (default)": {},
    }
    medians = {}
    for label, env in cases.items():
        seconds, memory = cold_points(sessions, **env)
        medians[label] = statistics.median(seconds)
        print(
            f"{sessions} cold points, {label:<30} median {medians[label]:6.1f} s   "
            f"slowest {seconds[-1]:6.1f} s   server memory after: {memory:,.0f} MB"
        )
    before, after = medians.values()
    print(f"cold points: service vs in the page, median x{after / before:.2f}")


if __name__ == "__main__":
    main()
