"""What every command shares: the parser, the exit status of bad input, progress on stderr.

The parser reports a usage mistake as one ``error:`` line; ``--set KEY=VALUE`` is read here, and
a stopped command counts its stored points with :func:`stored_runs`.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from labeldp_core.cache import ResultCache
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, lookup

EXIT_BAD_INPUT = 2
#: A point failed on a cluster worker (each failure is named on stderr).
EXIT_POINTS_FAILED = 1


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake as one ``error:`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with one ``error:`` line that points at ``--help``."""
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see `python -m labeldp_core --help`)\n")


def parse_settings(pairs: Sequence[str]) -> dict[str, str]:
    """``--set KEY=VALUE`` options as a dict of strings (the mechanism's table types them)."""
    settings = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise LabelDPError(f"--set expects KEY=VALUE, got {pair!r} (e.g. --set model=mlp)")
        settings[name.strip()] = value.strip()
    return settings


def stderr_bar(lines: bool = False) -> Progress:
    """A progress bar on a terminal; elsewhere nothing, or one line per message if ``lines``."""
    if not sys.stderr.isatty():
        return stderr_lines() if lines else silent

    def show(fraction: float, message: str) -> None:
        filled = int(30 * fraction)
        bar = "#" * filled + "-" * (30 - filled)
        sys.stderr.write(f"\r[{bar}] {100 * fraction:5.1f}% {message[:60]:<60}")
        if fraction >= 1.0:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


#: In line mode a long stage still prints its progress this often (seconds).
LINE_EVERY_S = 10.0


def stderr_lines() -> Progress:
    """One line per stage (a message's part before its colon), and more within a long stage.

    A stage that lasts prints its whole message (e.g. the epoch) every :data:`LINE_EVERY_S`
    seconds, so a log of a 9-minute DP-SGD run never looks stuck.
    """
    last = {"head": "", "time": time.monotonic()}

    def show(fraction: float, message: str) -> None:
        head, now = message.split(":")[0], time.monotonic()
        if head != last["head"]:
            text = head
        elif now - last["time"] >= LINE_EVERY_S:
            text = message
        else:
            return
        last.update(head=head, time=now)
        print(f"[{100 * fraction:5.1f}%] {text}", file=sys.stderr, flush=True)

    return show


def stored_runs(configs: Sequence[RunConfig], cache: ResultCache) -> tuple[int, int]:
    """How many of ``configs`` are stored in ``cache``, and how many there are."""
    return sum(lookup(config, cache) is not None for config in configs), len(configs)
