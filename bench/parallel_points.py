"""Two points at once on two cores: the time of one each, not ten times more.

Run: ``.venv/bin/python bench/parallel_points.py [--repeats R] [--old CHECKOUT]``. Each round
times, as a user meets them, whole command-line processes (``run rr --dataset digits --epsilon 1
--json``, one uncached point, each with an empty cache of its own, process start included):

1. one point alone;
2. two points at once (seeds 1 and 2), the wall time until both are done.

It prints the median of each and the ratio two-at-once / alone (target: at most 2.2, the time of
two points computed one after the other plus a little). With ``--old CHECKOUT`` (a worktree of an
earlier commit, e.g. ``git worktree add /tmp/old 91f6893``) the same rounds run for that code too,
interleaved with this code's, so that both are measured on the same machine at the same time.
The variables the project sets for itself (OMP_NUM_THREADS, MKL_NUM_THREADS,
LABELDP_TORCH_THREADS) are removed from the processes' environment: each code's own default runs.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHOSEN_BY_THE_CODE = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "LABELDP_TORCH_THREADS")


def start_point(checkout: Path, seed: int, work: Path) -> subprocess.Popen:
    """Start one uncached point of ``checkout``'s command line, with a cache of its own."""
    env = {k: v for k, v in os.environ.items() if k not in CHOSEN_BY_THE_CODE}
    env["LABELDP_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-", dir=work)
    command = [
        sys.executable,
        "-m",
        "labeldp_core",
        "run",
        "rr",
        "--dataset",
        "digits",
        "--epsilon",
        "1",
        "--seed",
        str(seed),
        "--json",
    ]
    return subprocess.Popen(command, cwd=checkout, env=env, stdout=subprocess.DEVNULL)


def timed(checkout: Path, seeds: tuple[int, ...], work: Path) -> float:
    """Wall seconds until every point of ``seeds``, started together, is done."""
    started = time.perf_counter()
    processes = [start_point(checkout, seed, work) for seed in seeds]
    if any(process.wait() != 0 for process in processes):
        raise SystemExit(f"a point failed in {checkout}")
    return time.perf_counter() - started


def rounds(checkouts: dict[str, Path], repeats: int, work: Path) -> dict[str, dict[str, list]]:
    """Alone and two-at-once times of every checkout, interleaved round by round."""
    times = {name: {"alone": [], "two": []} for name in checkouts}
    for index in range(repeats):
        for name, checkout in checkouts.items():
            times[name]["alone"].append(timed(checkout, (0,), work))
            times[name]["two"].append(timed(checkout, (1, 2), work))
            alone, two = times[name]["alone"][-1], times[name]["two"][-1]
            print(
                f"round {index + 1} {name:>4}: alone {alone:6.1f} s, two at once {two:6.1f} s",
                flush=True,
            )
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--old", type=Path, help="a checkout of the code to compare with")
    args = parser.parse_args()
    checkouts = {"this": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    work = Path(tempfile.mkdtemp(prefix="bench-parallel-"))
    try:
        times = rounds(checkouts, args.repeats, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, found in times.items():
        alone, two = statistics.median(found["alone"]), statistics.median(found["two"])
        ratios = [t / a for t, a in zip(found["two"], found["alone"], strict=True)]
        print(
            f"{name:>4}: one point alone {alone:.1f} s, two at once {two:.1f} s: "
            f"ratio {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max "
            f"{max(ratios):.2f}; target at most 2.2)"
        )


if __name__ == "__main__":
    main()
