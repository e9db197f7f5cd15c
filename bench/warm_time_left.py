"""How right a warm's time left is: a recorded warm's timeline replayed through its estimate.

Run: ``.venv/bin/python bench/warm_time_left.py [--timeline PATH] [--slower 1.0]``.

A warm says, after every point, how long is left (:mod:`labeldp_core.services.warm_estimate`).
This replays the points of a recorded warm (``bench/measured/timeline-digits.json`` by default,
written by ``bench/warm_speed.py --write``: each point's seconds, in the order it was done) on
its workers as the pool deals them, asks the estimate what the warm asks it at the end of every
point, with the shipped per-family rates (``warm_rates.json``), and prints how far it was from
the time really left at a few shares of the way, and the worst from 10% and from 20% on.
``--slower`` stretches every point, as a machine that runs slower than the bench's would.

The replay is not the warm: each point counts its whole seconds, where the warm leaves out what
a point computed for others (a clean baseline, teachers' votes), so it is for comparing two
versions of the estimate on the same timeline, not a warm's own figures (``warm_speed.py``'s).
``tests/services/test_warm_estimate.py`` replays its own recorded timeline with this module.
"""

import argparse
import contextlib
import heapq
import json
import re
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import make_config
from labeldp_core.services import warm_estimate
from labeldp_core.services.warm import AUDIT_PAGE, MODEL_AUDITS, WarmTask
from labeldp_core.services.warm_estimate import Estimate, reference_rates

ROOT = Path(__file__).resolve().parents[1]
_RUN = re.compile(r"(\S+) ε=([\d.]+) seed=(\d+)$")
_MODEL_AUDIT = re.compile(r"model audit (\S+) ε=([\d.]+)$")
_CASE = re.compile(r"audit (\S+) case (\d+)$")
#: The shares of the way at which the error is printed.
SHARES = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 0.9)

#: One moment of a replay: (share of the way done, the estimate then, the time really left).
Said = tuple[float, float | None, float]


def task_of(label: str, dataset: str = "digits") -> WarmTask:
    """The warm's task of a progress line's point (its mechanism's default settings)."""
    if found := _MODEL_AUDIT.match(label):
        return WarmTask(MODEL_AUDITS, False, model_audit=(found[1], dataset, float(found[2])))
    if found := _CASE.match(label):
        return WarmTask(AUDIT_PAGE, True, audit=(found[1], dataset, int(found[2]) - 1))
    mechanism, epsilon, seed = _RUN.match(label).groups()
    config = make_config(mechanism, dataset, float(epsilon), int(seed))
    return WarmTask(mechanism, False, config=config)


def replay(
    estimate: Estimate, points: list[tuple[WarmTask, float]], workers: int, clock: list[float]
) -> list[Said]:
    """The pool's run of ``points`` on ``workers``, the estimate asked at each point's end.

    Each point takes its recorded seconds; a worker takes the next point as soon as it is free,
    and the estimate is asked then, as the warm asks it, with ``clock[0]`` (what the estimate's
    ``time.monotonic`` must return) at that moment.
    """
    free = [(0.0, worker) for worker in range(workers)]
    spans = []
    for task, seconds in points:
        start, worker = heapq.heappop(free)
        spans.append((start, start + seconds, task, seconds))
        heapq.heappush(free, (start + seconds, worker))
    end = max(finish for _, finish, _, _ in spans)
    said = []
    for now in sorted({finish for _, finish, _, _ in spans}):
        clock[0] = now
        for _, finish, task, seconds in spans:
            if finish == now:
                estimate.add(task, seconds)
        waiting = [task for start, _, task, _ in spans if start > now]
        running = {id(s): (s[2], s[0]) for s in spans if s[0] <= now < s[1]}
        said.append((now / end, estimate.left(waiting, running, workers), end - now))
    return said


def replayed(timeline: dict, slower: float, clock: list[float], cache: ResultCache) -> list[Said]:
    """``timeline``'s warm replayed with the shipped rates, each point ``slower`` times longer."""
    dataset = timeline.get("dataset", "digits")
    points = [(task_of(label, dataset), s * slower) for label, s in timeline["points"]]
    estimate = Estimate(cache, reference_rates(dataset))
    return replay(estimate, points, timeline["workers"], clock)


def _error(said: list[Said], share: float) -> str:
    at, left, real = min(said, key=lambda moment: abs(moment[0] - share))
    return f"{at:.0%}: " + ("unknown" if left is None else f"{left / real - 1:+.0%}")


def _worst(said: list[Said], start: float) -> str:
    errors = [abs(left / real - 1) for at, left, real in said if start <= at <= 0.9 and left]
    return f"{max(errors):.0%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeline", default=str(ROOT / "bench/measured/timeline-digits.json"))
    parser.add_argument("--slower", type=float, default=1.0)
    args = parser.parse_args()
    timeline = json.loads(Path(args.timeline).read_text(encoding="utf-8"))
    clock = [0.0]
    warm_estimate.time = SimpleNamespace(monotonic=lambda: clock[0])  # the replay's clock
    with (
        tempfile.TemporaryDirectory(prefix="replay-") as empty,
        contextlib.closing(ResultCache(Path(empty))) as cache,
    ):
        said = replayed(timeline, args.slower, clock, cache)
    print(f"{args.timeline} (commit {timeline.get('commit', '?')}), points x{args.slower:g}")
    print("time left said / really left - 1, at a share of the way:")
    print("  " + ", ".join(_error(said, share) for share in SHARES))
    print(f"  worst from 10%: {_worst(said, 0.1)}; from 20%: {_worst(said, 0.2)}")


if __name__ == "__main__":
    main()
