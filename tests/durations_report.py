"""The 20 slowest tests of the default suite, written into ``docs/develop/tests.md``.

``python tests/durations_report.py [-n WORKERS]`` (``make test-durations``) runs the default
suite as ``make test`` does, with ``--durations=20``, shows its output and rewrites the block
between the markers of the page with the table, the suite's time, the commit and the machine's
load, and the machine's speed measured just before it (``bench/machine_speed.py``: the same code
took 508 s and, three hours later, 717 s on this shared machine, so a time without the machine's
speed beside it compares with nothing). ``--from LOG`` reads the output of such a run
instead of running one.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "develop" / "tests.md"
BEGIN, END = "<!-- slowest-tests:begin -->", "<!-- slowest-tests:end -->"
SLOWEST = 20
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown) +(\S+)$")
_SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed).* in [\d.]+s(?: \([\d:]+\))?) ?=*$")


def slowest(output: str) -> list[tuple[float, str, str]]:
    """(seconds, phase, test) of the durations pytest printed, slowest first.

    A test's ``@group`` suffix (pytest-xdist's ``--dist loadgroup``) is left out.

    >>> slowest("12.50s call     tests/a.py::test_b@browser\\n0.10s setup tests/c.py::d")
    [(12.5, 'call', 'tests/a.py::test_b'), (0.1, 'setup', 'tests/c.py::d')]
    """
    found = []
    for line in output.splitlines():
        match = _DURATION.match(line.strip())
        if match:
            seconds, phase, test = match.groups()
            found.append((float(seconds), phase, test.split("@")[0]))
    return sorted(found, key=lambda row: -row[0])


def summary(output: str) -> str:
    """pytest's closing line (counts and time), or "" if the output has none.

    >>> summary("x\\n1 failed, 4621 passed, 1 skipped in 882.66s (0:14:42)\\n")
    '1 failed, 4621 passed, 1 skipped in 882.66s (0:14:42)'
    """
    lines = (_SUMMARY.match(line.strip()) for line in output.splitlines())
    found = [match.group(1) for match in lines if match]
    return found[-1] if found else ""


def block(rows: list[tuple[float, str, str]], run: str) -> str:
    """The page's block: how it was measured, then one table row per test."""
    table = ["| seconds | phase | test |", "|---:|---|---|"]
    table += [f"| {seconds:.1f} | {phase} | `{test}` |" for seconds, phase, test in rows]
    return "\n".join([BEGIN, run, "", *table, END])


def rewrite(page: str, new_block: str) -> str:
    """``page`` with the text between the markers (included) replaced by ``new_block``."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"error: {PAGE} has no {BEGIN} ... {END} block")
    return page[:start] + new_block + page[end + len(END) :]


def _run_suite(workers: str) -> tuple[str, int]:
    command = [sys.executable, "-m", "pytest", "-q", f"--durations={SLOWEST}"]
    if workers != "0":
        command += ["-n", workers, "--dist", "loadgroup"]
    print("$", " ".join(command), flush=True)
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    lines = []
    for line in process.stdout:
        print(line, end="", flush=True)
        lines.append(line)
    return "".join(lines), process.wait()


def _yardstick() -> str:
    """The machine's speed now (``bench/machine_speed.py``), in words, or why it is missing."""
    measured = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "machine_speed.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return measured.stdout.strip() or f"yardstick failed: {measured.stderr.strip()[-200:]}"


def _where(yardstick: str) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"commit {commit or 'unknown'}, {os.cpu_count()} cores, load average {load} at the end; "
        f"before it, {yardstick}"
    )


def main() -> int:
    """Run the suite (or read a log of it) and rewrite the page's block."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", dest="workers", default="2", help="pytest-xdist workers (0: none)")
    parser.add_argument("--from", dest="log", type=Path, help="read this pytest output instead")
    args = parser.parse_args()
    if args.log:
        output, status = args.log.read_text(), 0
        how = f"a saved run, {args.log.name}: {summary(output) or 'no summary'}"
    else:
        yardstick = _yardstick()
        output, status = _run_suite(args.workers)
        shown = "pytest -q" + (
            f" -n {args.workers} --dist loadgroup" if args.workers != "0" else ""
        )
        how = f"`{shown}`: {summary(output) or 'no summary'}"
        how += f"; {_where(yardstick)}"
    rows = slowest(output)[:SLOWEST]
    if status != 0 or not rows:
        print(f"error: the suite failed ({status}) or printed no durations; the page is unchanged")
        return status or 1
    command = "tests/durations_report.py --from LOG" if args.log else "make test-durations"
    run = f"Measured by `{command}` ({how})."
    PAGE.write_text(rewrite(PAGE.read_text(encoding="utf-8"), block(rows, run)), encoding="utf-8")
    print(f"wrote the {len(rows)} slowest tests into {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
