"""Compute points in worker processes: a bounded pool, one computation per point, progress back.

Why processes: torch's thread count, its global seed and its allocator are process-wide, so two
trainings in one process (two students' sessions) change each other's numbers and oversubscribe the
cores. Here each worker computes one point at a time, its training on the threads that
:mod:`labeldp_core.base.threads` gives (the cores shared among the trainings running on the
machine, or ``threads`` if given): the same configuration and seed give the same numbers under any
load, and at most ``workers`` trainings run at once, server-wide. A point asked for while it is
queued or running is not computed again: every asker waits on the same job (single flight, keyed by
the cache key). A queued job nobody waits for any more (its tabs were closed) is dropped. Workers
are replaced after ``tasks_per_worker`` points, giving the memory a training freed back to the
system, and when one dies (killed, out of memory) its job fails with a clear message and a new
worker takes its place. Each worker reports on a pipe of its own: one killed in the middle of a
report leaves half a message (and, on a channel shared by every worker, its write lock) only in
a pipe that goes with it. Workers are daemon processes that also end when the server's process
is gone (however it ended: :func:`~labeldp_core.experiments.stopping.end_with_parent`); a point
cut off is simply not cached (the cache writes each result in one transaction), so nothing
already stored is lost.
"""

import contextlib
import ctypes
import gc
import json
import os
import re
import sys
import threading
import time
import types
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from labeldp_core.base.threads import THREADS_ENV, fixed_threads
from labeldp_core.cache import ResultCache
from labeldp_core.engine.spec import RunConfig, RunResult
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments.forked_workers import adopt_environment, environment, worker_context
from labeldp_core.experiments.runner import run
from labeldp_core.experiments.stopping import end_with_parent

__all__ = ["ComputeService", "Job", "JobFailedError", "default_workers", "resident_mb"]

_POLL_S = 0.1


class JobFailedError(LabelDPError):
    """A point could not be computed: its worker stopped or the computation raised."""


def default_workers() -> int:
    """Trainings at once: ``$LABELDP_WORKERS`` if set, else one per core (0: compute in-process)."""
    configured = os.environ.get("LABELDP_WORKERS")
    if configured is not None:
        return max(0, int(configured))
    return max(1, os.cpu_count() or 1)


@dataclass
class Job:
    """One point being computed for everyone who asked for it."""

    key: str
    config: RunConfig
    state: str = "queued"  # queued, running, done, failed, dropped
    fraction: float = 0.0
    message: str = "waiting for a free worker"
    position: int = 0  # points queued ahead of it (0 once running)
    waiters: int = 0
    worker: int | None = None  # the process id computing it, once it runs
    threads: int = 0  # torch threads that process trains on
    started: float = 0.0  # time.monotonic() when a worker took it
    outcome: dict | None = None
    error: str = ""

    def __post_init__(self) -> None:
        self._finished = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends or ``timeout`` seconds pass; True when it ended."""
        return self._finished.wait(timeout)

    def result(self) -> RunResult:
        """The computed result; raises :class:`JobFailedError` if the job failed or was dropped."""
        self.wait()
        if self.outcome is None:
            raise JobFailedError(self.error or "the computation was dropped")
        return RunResult.from_dict(self.outcome)

    def status(self) -> str:
        """Where the job is, in a few words, for a progress bar."""
        if self.state != "queued" or not self.position:
            return self.message
        return (
            f"waiting for a free worker ({self.position} point"
            + ("s" if self.position != 1 else "")
            + " queued before it)"
        )

    def _end(self, state: str, outcome: dict | None = None, error: str = "") -> None:
        self.state, self.outcome, self.error = state, outcome, error
        self._finished.set()


@dataclass
class _Worker:
    """A worker process, the queue it takes points from, and the pipe it reports on."""

    process: Any
    tasks: Any
    reports: Connection
    heard_last: bool = False  # its reports ended (it exited, or was killed mid-report)

    def take_reports(self) -> list[tuple]:
        """Every whole report waiting in its pipe; at the pipe's end, marks the end heard."""
        taken = []
        try:
            while not self.heard_last and self.reports.poll():
                taken.append(self.reports.recv())
        except (EOFError, OSError):  # gone, maybe with a report half-written: it goes with it
            self.heard_last = True
            self.reports.close()
        return taken


class ComputeService:
    """A server-wide pool of worker processes that computes :class:`RunConfig` points.

    Args:
        cache_dir: the result cache every worker reads and writes.
        workers: how many points are computed at once.
        threads: torch threads per worker, fixed (default: the cores shared among the trainings
            running on the machine, re-checked every epoch; see
            :mod:`labeldp_core.base.threads`).
        tasks_per_worker: points a worker computes before it is replaced (memory given back).
        memory_limit_mb: a worker whose resident memory passes this is stopped, failing its
            point with that reason (no link can take the server's memory).
        time_limit_s: a point computed longer than this is stopped the same way.
    """

    def __init__(
        self,
        cache_dir: str | os.PathLike[str],
        workers: int = 2,
        threads: int | None = None,
        tasks_per_worker: int = 8,
        memory_limit_mb: float = 8192,
        time_limit_s: float = 3600,
    ) -> None:
        if workers < 1:
            raise ValueError(f"a compute service needs at least one worker, got {workers}")
        self.cache_dir = Path(cache_dir)
        self.threads = threads
        self.tasks_per_worker = tasks_per_worker
        self.memory_limit_mb, self.time_limit_s = memory_limit_mb, time_limit_s
        self._context = worker_context()
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._queued: deque[Job] = deque()
        self._workers = [self._start_worker(slot) for slot in range(workers)]
        self._busy: list[Job | None] = [None] * workers
        self._handed = [0] * workers  # points given to each worker (it exits after its budget)
        self._closed = threading.Event()
        self._dispatcher = threading.Thread(target=self._dispatch, name="compute", daemon=True)
        self._dispatcher.start()

    def submit(self, config: RunConfig) -> Job:
        """The job computing ``config``: a running or queued one if there is, else a new one.

        Call :meth:`release` (or use :meth:`waiting`) once you stop waiting for it.
        """
        key = json.dumps(config.to_dict(), sort_keys=True)
        with self._lock:
            job = self._jobs.get(key)  # ended jobs are forgotten: a new ask is a new job
            if job is None:
                job = Job(key, config)
                self._jobs[key] = job
                self._queued.append(job)
                self._number_queue()
            job.waiters += 1
            return job

    def release(self, job: Job) -> None:
        """One asker fewer; a queued job with no asker left is dropped."""
        with self._lock:
            job.waiters = max(0, job.waiters - 1)
            if job.waiters == 0 and job.state == "queued":
                self._queued.remove(job)
                self._forget(job)
                job._end("dropped", error="nobody waits for this point any more")
                self._number_queue()

    @contextlib.contextmanager
    def waiting(self, config: RunConfig):
        """``with service.waiting(config) as job:`` submits, and releases the job on exit."""
        job = self.submit(config)
        try:
            yield job
        finally:
            self.release(job)

    def worker_pids(self) -> list[int]:
        """Process ids of the current workers (for tests and monitoring)."""
        return [worker.process.pid for worker in self._workers]

    def shutdown(self) -> None:
        """Stop every worker now; queued and running jobs fail (nothing is half-written)."""
        self._closed.set()
        self._dispatcher.join(timeout=5)
        with self._lock:
            for worker in self._workers:
                worker.process.terminate()
                worker.reports.close()
            for job in list(self._jobs.values()):
                job._end("failed", error="the server stopped before this point was computed")
            self._jobs.clear()
            self._queued.clear()

    # --- dispatcher thread --------------------------------------------------------------------

    def _start_worker(self, slot: int) -> _Worker:
        tasks = self._context.SimpleQueue()
        reports, reporter = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_worker_main,
            args=(
                slot,
                tasks,
                reporter,
                str(self.cache_dir),
                self.threads,
                self.tasks_per_worker,
                environment(),
            ),
            name=f"labeldp-worker-{slot}",
            daemon=True,
        )
        with _main_module_hidden():
            process.start()
        reporter.close()  # the worker's end alone: its pipe ends when the worker does
        return _Worker(process, tasks, reports)

    def _dispatch(self) -> None:
        while not self._closed.is_set():
            listening = [worker.reports for worker in self._workers if not worker.heard_last]
            ready = set(wait(listening, timeout=_POLL_S))
            with self._lock:
                for worker in self._workers:
                    if worker.reports in ready:
                        for event in worker.take_reports():
                            self._handle(event)
                self._replace_dead_workers()
                self._hand_out()

    def _handle(self, event: tuple) -> None:
        kind, slot, *rest = event
        job = self._busy[slot]
        if kind == "started" and job is not None:
            job.worker, job.threads = rest
        elif kind == "progress" and job is not None:
            job.fraction, job.message = rest
        elif kind in ("done", "failed") and job is not None:
            self._busy[slot] = None
            self._forget(job)
            if kind == "done":
                job._end("done", outcome=rest[0])
            else:
                job._end("failed", error=rest[0])

    def _replace_dead_workers(self) -> None:
        for slot, worker in enumerate(self._workers):
            process, job = worker.process, self._busy[slot]
            over = self._over_limit(process.pid, job) if process.is_alive() else ""
            if over:
                process.kill()
                process.join(timeout=5)
            if process.is_alive() or process.exitcode is None:
                continue
            for event in worker.take_reports():  # what it said before it ended: maybe "done"
                self._handle(event)
            job = self._busy[slot]
            worker.reports.close()
            if job is not None:
                self._busy[slot] = None
                self._forget(job)
                why = over or f"stopped (exit code {process.exitcode}; out of memory?)"
                job._end(
                    "failed",
                    error=(
                        f"the worker computing this point {why}; nothing was cached for it: "
                        "choose a smaller setting (fewer epochs, a smaller dataset) and try again"
                    ),
                )
            self._workers[slot] = self._start_worker(slot)
            self._handed[slot] = 0

    def _over_limit(self, pid: int, job: Job | None) -> str:
        """Why the worker ``pid`` computing ``job`` must be stopped, or "" if it may go on."""
        if job is None:
            return ""
        if time.monotonic() - job.started > self.time_limit_s:
            return f"ran past the time limit of {self.time_limit_s:g} s"
        resident = resident_mb(pid)
        if resident > self.memory_limit_mb:
            limit = f"{self.memory_limit_mb:,.0f} MB"
            return f"used {resident:,.0f} MB, past the memory limit of {limit}"
        return ""

    def _hand_out(self) -> None:
        for slot, job in enumerate(self._busy):
            spent = self._handed[slot] >= self.tasks_per_worker  # exiting: wait for its successor
            free = job is None and not spent and self._workers[slot].process.is_alive()
            if free and self._queued:
                self._handed[slot] += 1
                job = self._queued.popleft()
                job.state, job.position, job.message = "running", 0, "starting"
                job.started = time.monotonic()
                self._busy[slot] = job
                self._workers[slot].tasks.put(job.config)
        self._number_queue()

    def _number_queue(self) -> None:
        for ahead, job in enumerate(self._queued):
            job.position = ahead

    def _forget(self, job: Job) -> None:
        if self._jobs.get(job.key) is job:
            del self._jobs[job.key]


# --- worker processes -------------------------------------------------------------------------


@contextlib.contextmanager
def _main_module_hidden():
    """Start processes without re-running the server's main script in them.

    A worker process (spawned, or forked from the forkserver) imports the parent's ``__main__``
    first; under ``streamlit run`` that is the app's script, which would start a service of its
    own there. An empty stand-in module (no file, no spec) makes the worker import nothing but
    this module.
    """
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real


def _worker_main(
    slot,
    tasks,
    reports: Connection,
    cache_dir: str,
    threads: int | None,
    budget: int,
    environ: dict,
) -> None:
    """Compute points from ``tasks`` one at a time; retire after ``budget`` of them.

    Its reports go on ``reports``, written by the training's own thread (no feeder thread):
    while the service does not read, the training waits for it rather than piling reports up.

    ``environ`` is the server's environment when it started the worker (see
    :mod:`labeldp_core.experiments.forked_workers`).
    """
    adopt_environment(environ)
    end_with_parent()  # a server killed (even with SIGKILL) leaves no worker training
    if threads:
        os.environ[THREADS_ENV] = str(threads)
    import torch

    torch.set_num_threads(fixed_threads() or 1)
    cache = ResultCache(cache_dir)
    for _ in range(budget):
        config = tasks.get()
        reports.send(("started", slot, os.getpid(), torch.get_num_threads()))

        def report(fraction: float, message: str) -> None:
            reports.send(("progress", slot, float(fraction), str(message)))

        try:
            result = run(config, cache, progress=report)
        except Exception as exc:  # every failure is reported to the waiters, not raised here
            reason = str(exc) if isinstance(exc, LabelDPError) else f"{type(exc).__name__}: {exc}"
            reports.send(("failed", slot, reason))
        else:
            reports.send(("done", slot, result.to_dict()))
        _give_memory_back()
    cache.close()  # and exit: the dispatcher replaces a worker that has exited


def resident_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (0 if it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(found.group(1)) / 1024 if found else 0.0


def _give_memory_back() -> None:
    """Collect garbage and ask glibc to return freed heap pages to the system."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
