"""Table speed: a 1,000,000-row, 50-column CSV read, prepared and run through RR.

Run: ``.venv/bin/python bench/table_speed.py [--rows N]``. Writes a generated CSV (40 numeric
columns with 3 decimals, a tenth of one column missing, 9 text columns of 3 to 80 values, one of
them dropped for having more than 50, and a 10-class label), then times in one run, each with the
peak resident memory of this process while it ran (sampled every 20 ms) and its rise over the
step's start: reading the file into
a table, preparing it (label codes, the split, imputing, standardising, one-hot encoding) and
storing its arrays, and one ``rr`` run on it (logistic model, one epoch). Target: reading and
preparing under 30 s and 4 GiB on this machine.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.cache import ResultCache
from labeldp_core.data.tables import add_table, read_table
from labeldp_core.experiments import make_config, run


def write_csv(path: Path, rows: int) -> None:
    rng = np.random.default_rng(0)
    numbers = rng.normal(size=(rows, 40)).round(3)
    frame = pd.DataFrame(numbers, columns=[f"x{i}" for i in range(40)])
    frame.loc[rng.random(rows) < 0.1, "x0"] = np.nan
    for i, levels in enumerate((3, 5, 8, 12, 20, 30, 40, 50, 80)):
        frame[f"c{i}"] = np.char.add("v", rng.integers(0, levels, rows).astype(str))
    classes = (numbers[:, 0] > 0) * 5 + rng.integers(0, 5, rows)
    frame["label"] = np.char.add("k", classes.astype(str))
    frame.to_csv(path, index=False)


class PeakMemory:
    """The largest resident memory of this process while the block runs, in MiB."""

    def __enter__(self) -> "PeakMemory":
        self.peak, self._running = 0.0, True
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        process = psutil.Process()
        while self._running:
            self.peak = max(self.peak, process.memory_info().rss / 2**20)
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self._running = False
        self._thread.join()


def step(name: str, work):
    before = psutil.Process().memory_info().rss / 2**20
    started = time.perf_counter()
    with PeakMemory() as memory:
        value = work()
    print(
        f"{name:<40} {time.perf_counter() - started:6.1f} s   peak {memory.peak:6.0f} MiB "
        f"({memory.peak - before:+6.0f} MiB over the step's start)"
    )
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--write", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        write_csv(Path(args.write), args.rows)
        return
    rows = args.rows
    folder = Path(tempfile.mkdtemp(prefix="bench-table-"))
    os.environ["LABELDP_CACHE_DIR"] = str(folder)  # the table and its results: thrown away
    try:
        measure(folder, rows)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # a million rows leave a gigabyte behind


def measure(folder: Path, rows: int) -> None:
    """Write the CSV, then time each step on it."""
    path = folder / "big.csv"
    # Written by another process, so this one's memory holds nothing of the writing.
    subprocess.run(
        [sys.executable, __file__, "--rows", str(rows), "--write", str(path)], check=True
    )
    print(f"{rows:,} rows x 50 columns: {path.stat().st_size / 2**20:,.0f} MiB of CSV")
    data = step("read the file and parse it", path.read_bytes)
    step("parse it into a table", lambda: read_table(data))
    info = step("read, prepare and store (add_table)", lambda: add_table(data, "label", "big"))
    print(f"  {len(info.features)} features; notes: {'; '.join(info.notes)}")
    config = make_config("rr", info.id, 1.0, 0, 1, {"model": "logistic"})
    cache = ResultCache(folder)
    step("rr at epsilon 1 (logistic, one epoch)", lambda: run(config, cache))


if __name__ == "__main__":
    main()
