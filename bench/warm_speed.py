"""`warm --dataset digits` from an empty cache: how long, and how right its time-left estimate is.

Run: ``.venv/bin/python bench/warm_speed.py [--old CHECKOUT] [--dataset NAME]``. It runs the
command line's ``warm`` as a user does (a new process, an empty ``LABELDP_CACHE_DIR``, the
project's thread variables removed so the code's own defaults run) and prints:

1. the wall time of the whole warm (issue 52's target: at most 8 minutes for digits on 2 cores);
2. when the first views of every page were all ready (the point a class can start);
3. the time-left estimate it printed at 10%, 25%, 50%, 75% and 90% of the wall time, beside the
   time that was really left then (target: within 25%).

With ``--old CHECKOUT`` (e.g. a worktree of an earlier commit) the old code's warm is timed too,
after this one (not interleaved: each takes many minutes), for the wall time only. With
``--write`` the measurement is stored in ``bench/measured/`` (with each point's seconds, in
order: ``timeline-DATASET.json``) and written into the docs' blocks and the warm's per-family
rates (``bench/measured.py``): the docs state no warm time the bench did not measure, and the
warm's time left starts from what it measured.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine_speed
import measured

ROOT = Path(__file__).resolve().parents[1]
CHOSEN_BY_THE_CODE = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "LABELDP_TORCH_THREADS")
#: The time left in ``labeldp_core.services.warm.left_text``'s words.
LEFT = re.compile(r"about (\d+) (s|min) left(?: \([^)]*\))?; first views ready: (\d+)/(\d+)")


def timed_warm(checkout: Path, dataset: str, work: Path) -> tuple[float, list[tuple[float, str]]]:
    """Wall seconds of one warm from an empty cache, and each line it printed with its time."""
    env = {k: v for k, v in os.environ.items() if k not in CHOSEN_BY_THE_CODE}
    env["LABELDP_CACHE_DIR"] = tempfile.mkdtemp(prefix="cache-", dir=work)
    command = [sys.executable, "-m", "labeldp_core", "warm", "--dataset", dataset]
    started, lines = time.perf_counter(), []
    process = subprocess.Popen(
        command,
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in process.stderr:
        lines.append((time.perf_counter() - started, line.rstrip()))
    if process.wait() != 0:
        raise SystemExit(f"warm failed in {checkout}: {lines[-3:]}")
    return time.perf_counter() - started, lines


def estimates(lines: list[tuple[float, str]]) -> list[tuple[float, float, bool]]:
    """(seconds since start, seconds left as estimated, every first view ready) per line."""
    found = []
    for at, line in lines:
        match = LEFT.search(line)
        if match:
            amount, unit, ready, pages = match.groups()
            left = float(amount) * (60 if unit == "min" else 1)
            found.append((at, left, ready == pages))
    return found


def report(total: float, lines: list[tuple[float, str]]) -> None:
    """Print the wall time, when the first views were ready, and the estimate's errors."""
    print(f"warm: {total:.0f} s ({total / 60:.1f} min); target at most 480 s")
    found = estimates(lines)
    ready = next((at for at, _, all_ready in found if all_ready), None)
    if ready is not None:
        print(f"every page's first view ready after {ready:.0f} s ({100 * ready / total:.0f}%)")
    for share in (0.10, 0.25, 0.50, 0.75, 0.90):
        at = share * total
        before = [(t, left) for t, left, _ in found if t <= at]
        if not before:
            continue
        when, said = before[-1]
        truth = total - when
        print(
            f"at {when:5.0f} s it said {said:5.0f} s left; {truth:5.0f} s were: "
            f"off by {100 * (said - truth) / truth:+.0f}%"
        )


def write(dataset: str, total: float, lines: list[tuple[float, str]], yardstick: dict) -> None:
    """Store the measurement in ``bench/measured/`` and rewrite the docs' blocks from it.

    ``yardstick`` is the machine's speed measured just before the warm (``machine_speed.py``).
    """
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    where = {
        "commit": commit or "unknown",
        "cores": os.cpu_count(),
        "processor": machine_speed.processor(),
        "load": os.getloadavg()[2],
        "yardstick": yardstick,
    }
    record = measured.warm_record(dataset, total, lines, where)
    path = measured.record_path(dataset)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    points = measured.timeline([line for _, line in lines])
    kept = where | {"dataset": dataset, "workers": os.cpu_count(), "points": points}
    measured.timeline_path(dataset).write_text(
        json.dumps(kept, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    measured.main()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="digits")
    parser.add_argument("--old", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--write", action="store_true", help="store it and write it in the docs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-warm-"))
    try:
        yardstick = machine_speed.measure()
        print(measured.yardstick_text(yardstick), flush=True)
        total, lines = timed_warm(ROOT, args.dataset, work)
        report(total, lines)
        if args.write:
            write(args.dataset, total, lines, yardstick)
        if args.old:
            old_total, _ = timed_warm(args.old.resolve(), args.dataset, work)
            print(
                f"old code's warm: {old_total:.0f} s ({old_total / 60:.1f} min); this code "
                f"{old_total / total:.2f}x faster"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
