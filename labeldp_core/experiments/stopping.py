"""A stop is a stop: a signal ends a long command in order, and its workers end with it.

``warm``, ``sweep``, ``audit`` and ``reproduce --compute`` run for minutes, often under
``timeout``, a service manager or a terminal that may close. Python's default for SIGTERM and
SIGHUP ends the main process at once, without running its ``finally`` blocks: worker processes
it started lived on as orphans, training for nobody. Here:

- :func:`signals_stop` turns SIGTERM, SIGINT and SIGHUP into :class:`Stopped` in the main thread,
  so the command's own clean-up runs (pools ended, a Dask cluster closed, a status file saying
  "interrupted"); a second signal during that clean-up ends the process at once.
- :func:`stops_deferred` holds a stop for the few system calls that start a process and keep
  its id, so that the clean-up knows every process there is to end.
- :func:`counted` attaches to the stop how many of the command's points are stored (each point is
  stored as it finishes, so a second run resumes there); the command line prints it. The count is
  read from what the command kept as it went, not recounted from the cache: after the workers
  are gone, nothing slow stands between the signal and the exit.
- :func:`end_with_parent`, called first thing in a worker process, ends the worker when its
  parent is gone, however the parent ended (even ``kill -9``), and leaves SIGINT (Ctrl+C reaches
  the whole process group) to the parent, which stops its workers itself.
- :func:`end_processes` and :func:`end_pool` stop workers now rather than after their point.
- :func:`exit_stopped` ends a stopped command's process without the interpreter's teardown.
"""

import atexit
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import NoReturn

__all__ = [
    "STOP_SIGNALS",
    "Stopped",
    "counted",
    "end_pool",
    "end_processes",
    "end_with_parent",
    "exit_stopped",
    "signals_stop",
    "stops_deferred",
]

#: The signals that stop a command: ``kill``/a service manager, Ctrl+C, a closed terminal.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: Seconds a worker is given to end after SIGTERM before it is killed.
GRACE_S = 2.0
#: A worker's exit status when it ended because its parent was gone.
EXIT_PARENT_GONE = 70
#: The exit statuses of a command stopped by one of :data:`STOP_SIGNALS` (128 + its number).
STOPPED_STATUSES = frozenset(128 + number for number in STOP_SIGNALS)

#: The stop signals received inside :func:`stops_deferred` (None outside it).
_held: list[int] | None = None


class Stopped(KeyboardInterrupt):
    """A stop signal received by the main thread; ``points`` is (done, total) once counted.

    A :class:`KeyboardInterrupt`, so that code (ours and libraries') that cleans up after Ctrl+C
    cleans up after SIGTERM too, and ``except Exception`` around a point never swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.points: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        """The signal's name, e.g. ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, the shells' convention (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum

    def report(self) -> str:
        """What was stopped and what is kept, in one line."""
        if self.points is None:
            return f"stopped by {self.name}; every point finished before is stored"
        done, total = self.points
        return (
            f"stopped by {self.name}: {done} of {total} points are done and stored; run the same "
            "command again to go on from there"
        )


@contextmanager
def signals_stop() -> Iterator[None]:
    """Inside the block, a stop signal raises :class:`Stopped` in the main thread.

    A second stop signal ends the process at once (its workers end with it:
    :func:`end_with_parent`). A signal ignored on entry stays ignored, as in any program:
    ``nohup`` ignores SIGHUP, a script's ``command &`` ignores SIGINT (the shell keeps it out of
    the terminal's Ctrl+C); neither ignores SIGTERM. The handlers in place before are restored
    on exit. Outside the main thread (where Python runs no signal handler) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        if stopping:
            os._exit(128 + signum)
        stopping = True
        if _held is not None:  # inside stops_deferred: raised at its end
            _held.append(signum)
            return
        raise Stopped(signum)

    before = {
        number: signal.signal(number, stop)
        for number in STOP_SIGNALS
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


@contextmanager
def stops_deferred() -> Iterator[None]:
    """Inside the block, a stop signal waits for the block's end, then raises :class:`Stopped`.

    For a block of a few system calls that must not be cut in two: one that starts a process
    and keeps its id (a stop raised between the two would leave a process the clean-up does not
    know of). Keep it short: the stop waits for it. A second signal still ends the process at
    once. Nested, or outside the main thread (which a stop never interrupts), it adds nothing.
    """
    global _held
    if _held is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    _held = []
    try:
        yield
    finally:
        held, _held = _held, None
        if held:
            raise Stopped(held[0])


@contextmanager
def counted(count: Callable[[], tuple[int, int] | None]) -> Iterator[None]:
    """On a :class:`Stopped` inside the block, set its ``points`` to ``count()``, then re-raise.

    ``count`` returns (points stored, points of the command), or None before the command knows
    its points. It runs after the stop, between the workers' end and the exit: it reads what
    the command kept as it went (a point is counted when it is stored), and plans nothing.
    """
    try:
        yield
    except Stopped as stop:
        stop.points = count()
        raise


def end_with_parent() -> None:
    """In a worker process: exit as soon as the parent process is gone; leave SIGINT to it.

    A thread waits on the parent's sentinel (a pipe that closes when the parent ends, whatever
    ended it) and then exits this process at once: a point cut off is not stored, so nothing
    half-written remains. Outside a :mod:`multiprocessing` worker this does nothing.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=_exit_after, args=(parent,), name="labeldp-parent-watch", daemon=True
    ).start()


def _exit_after(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()
    os._exit(EXIT_PARENT_GONE)


def end_processes(processes: Sequence[multiprocessing.process.BaseProcess]) -> None:
    """Terminate ``processes``, kill those alive :data:`GRACE_S` later, and reap them all."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()


def end_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: queued work cancelled, running work cut off, its workers ended."""
    # Python 3.14's ProcessPoolExecutor.terminate_workers() does this; 3.11 keeps the processes
    # in ``_processes`` (None once the pool has shut down).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    end_processes(processes)


def exit_stopped(status: int) -> NoReturn:
    """End this stopped command's process with ``status`` now, skipping the interpreter's teardown.

    By then its workers are ended, every point is stored and every file written; what is left is
    the teardown of the ~1,800 modules a computing command loads (torch, the accountants), which
    took 1-2 s of the 5 s a stop may take on a loaded machine. The exit handlers still run and
    stdout and stderr are flushed; only the teardown is skipped.
    """
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
