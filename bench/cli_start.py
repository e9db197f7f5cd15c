"""What a command-line call costs before it computes: list, --help, a bad input, a cached run.

Run: ``.venv/bin/python bench/cli_start.py [--old CHECKOUT] [--repeats R]``. Each command runs
as a new process, as a user meets it (the interpreter's start and every import included), the
cached run from a cache filled once beforehand. With ``--old CHECKOUT`` the same commands of an
older checkout run interleaved with this one's, and the ratio old / this is printed. Targets:
``list --json`` and a bad input under 1 s, a cached ``run`` under 2 s.
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
RUN = [
    "run",
    "rr",
    "--dataset",
    "digits",
    "--epsilon",
    "1",
    "--epochs",
    "1",
    "--set",
    "model=logistic",
    "--json",
]
COMMANDS = {
    "list --json": ["list", "--json"],
    "--help": ["--help"],
    "a bad input": ["run", "rr", "--dataset", "digits", "--epsilon", "-1"],
    "a cached run": RUN,
}


def seconds(checkout: Path, arguments: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "labeldp_core", *arguments],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    checkouts = {"this": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    try:
        envs = {name: os.environ | {"LABELDP_CACHE_DIR": str(work / name)} for name in checkouts}
        for name, checkout in checkouts.items():  # fill each code's cache with the run once
            seconds(checkout, RUN, envs[name])
        times = {(name, label): [] for name in checkouts for label in COMMANDS}
        for _ in range(args.repeats):
            for label, arguments in COMMANDS.items():
                for name, checkout in checkouts.items():
                    times[name, label].append(seconds(checkout, arguments, envs[name]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for label in COMMANDS:
        this = statistics.median(times["this", label])
        line = f"{label:<14} this code {this:5.2f} s (median of {args.repeats})"
        if args.old:
            old = statistics.median(times["old", label])
            line += f", old code {old:5.2f} s: {old / this:.1f}x faster"
        print(line)


if __name__ == "__main__":
    main()
