"""Watching processes end: a process and everything under it, polled until none is alive."""

import time
from collections.abc import Callable

import psutil


def family(pid: int) -> list[psutil.Process]:
    """Process ``pid`` and every process under it now."""
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def alive(process: psutil.Process) -> bool:
    """Running and not a zombie (an orphan's zombie may wait long for a reaper in a container)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def watch_until_gone(
    processes: list[psutil.Process], watch_s: float, reap: Callable[[], object] = lambda: None
) -> tuple[float, list[str]]:
    """Seconds until none of ``processes`` is alive, and those alive after ``watch_s`` (killed).

    ``reap`` is called on every poll (``Popen.poll`` reaps a child of the test). Only pass
    processes the test itself started: the survivors are killed.
    """
    started = time.monotonic()
    while True:
        reap()
        left = [process for process in processes if alive(process)]
        elapsed = time.monotonic() - started
        if not left or elapsed > watch_s:
            break
        time.sleep(0.05)
    described = [f"{p.pid} {' '.join(p.cmdline())[:120]}" for p in left]
    for process in left:
        process.kill()
    return elapsed, described
