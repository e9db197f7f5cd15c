"""``warm``: the demo set computed ahead of a class, several points at once, first views first.

The points run on a pool of worker processes (one per core; each training takes its share of the
cores, :mod:`labeldp_core.base.threads`) that live for the whole warm, so no point pays for a
process start, and every worker reads and writes the one result cache, so what points share (clean
baselines, image clusters, teacher votes) is computed once and read by the others. Points go out
in order of need: first every page's first view (every line a page draws, on the first demo seed:
each mechanism's curve grid and the variants shown side by side, and the audit page's cases),
then the class's extra ε values, then the curves' other seeds (their bands: a page opened
meanwhile draws the seeds stored and says the warm computes the rest) and the papers' runs: the
pages' phase. The trained models' canary audits (the price-of-privacy screen's) come after it,
a phase of their own with its own time left. ``until_pages`` stops once every first view, slider
stop and papers' run is ready (issue 52: "every page's first view and slider stops"), and leaves
the bands and the model audits for a later warm. A
status file in the cache folder says how far a warm got and the time left (read by the app;
:func:`left_text` words it for the app and the command line alike); an interrupted warm keeps
every point it finished and resumes there.
Stopped (a signal, Ctrl+C), it ends its workers at once, the points they were computing cut off
and not stored; a worker whose warm is gone (even killed) ends too
(:mod:`labeldp_core.experiments.stopping`).
"""

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import RunConfig
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs
from labeldp_core.experiments.forked_workers import (
    adopt_environment,
    end_forkserver,
    environment,
    worker_context,
)
from labeldp_core.experiments.runner import lookup
from labeldp_core.experiments.stopping import end_pool, end_with_parent
from labeldp_core.model_audit import audit_model, cached_audit, demo_model_audits
from labeldp_core.registry import ON_COMPARE
from labeldp_core.services.release_audits import app_audit_points, stored_audit_case
from labeldp_core.services.warm_estimate import MODEL_AUDIT, Estimate, latest, reference_rates
from labeldp_core.services.warm_together import compute_points, grouped, members

__all__ = [
    "AUDIT_PAGE",
    "MODEL_AUDITS",
    "PAGES",
    "WarmStatus",
    "WarmTask",
    "coverage",
    "duration_text",
    "later_words",
    "left_text",
    "lines_and_bands",
    "read_status",
    "run_warm",
    "start_warm",
    "status_path",
    "stored_points",
    "warm_tasks",
]

#: The name the audit page's cases go under in a warm's status (the others: mechanism ids).
AUDIT_PAGE = "audit"
#: The name the trained models' canary audits go under (the price-of-privacy screen reads them),
#: their page and their phase, after the pages'.
MODEL_AUDITS = "model audits"
#: The phase of every page's points: first views, slider stops and the papers' runs.
PAGES = "pages"
#: Seconds between two writes of the status file while points are running.
_STATUS_EVERY_S = 2.0
#: A running warm's status older than this is from a warm that was killed.
_STALE_AFTER_S = 60.0


@dataclass(frozen=True)
class WarmTask:
    """One point of a warm and whose view it is.

    A run (``config``), an audit case (``audit``) or a trained model's canary audit
    (``model_audit``: mechanism, dataset, ε). A run may bring points of its kind that train
    together with it (``together``, :mod:`labeldp_core.services.warm_together`).
    """

    page: str
    first_view: bool
    config: RunConfig | None = None
    audit: tuple | None = None
    model_audit: tuple[str, str, float] | None = None
    together: tuple[RunConfig, ...] = ()
    #: A curve's other seed, drawn as its band (``until_pages`` leaves it for a later warm).
    band: bool = False

    @property
    def label(self) -> str:
        """The point in a few words, for progress lines."""
        if self.config is not None:
            c = self.config
            more = f" and {len(self.together)} more of its kind" if self.together else ""
            return f"{c.mechanism} ε={c.epsilon:g} seed={c.seed}{more}"
        if self.model_audit is not None:
            return f"model audit {self.model_audit[0]} ε={self.model_audit[2]:g}"
        return f"audit {self.audit[0]} case {self.audit[2] + 1}"

    @property
    def size(self) -> int:
        """How many points the task computes: itself and those that train together with it."""
        return 1 + len(self.together)

    @property
    def phase(self) -> str:
        """:data:`PAGES` or :data:`MODEL_AUDITS`: the model audits come after every page's point."""
        return MODEL_AUDITS if self.model_audit is not None else PAGES

    @property
    def shares_trainings(self) -> tuple | None:
        """What the task trains that others of its kind train too, or None.

        A mechanism's model audits share trainings: the control without privacy, and the run at
        twice one audit's ε, which is the next audit's own run on the demo grid (0.25 doubled is
        0.5). Two of them side by side would both train what they share; one after the other,
        the second reads it from the cache.
        """
        if self.model_audit is None:
            return None
        return (MODEL_AUDITS, *self.model_audit[:2])

    @cached_property
    def kind(self) -> tuple:
        """Points of one kind take about as long: same mechanism and settings, any ε and seed.

        Kept once computed: the time left asks it of every point left every two seconds.
        """
        if self.model_audit is not None:
            return (MODEL_AUDITS, self.model_audit[0])
        if self.config is None:
            return (AUDIT_PAGE, self.audit[0])
        return (self.config.mechanism, json.dumps(self.config.settings, sort_keys=True))


def warm_tasks(dataset: str, extra: list[RunConfig] | None = None) -> list[WarmTask]:
    """Every point of ``dataset``'s demo set (and ``extra`` runs), first views first.

    A first view is every line a page draws when it opens, on the first demo seed (its curves'
    grid and the variants it shows side by side), and the audit page's cases; after them come
    the ε values the class slider stops at between the grid's, then the curves' other seeds
    (their band: the pages draw the seeds stored, and say that the warm computes the rest), then
    ``extra``; the model audits last, the longest family first. The first seed's points are
    about half the pages' (issue 52: 267 of 547 on digits, ready after 228 s of the pages' 411 s
    in ``bench/warm_speed.py``'s record at 73db381). One point of every kind of the first views
    goes first, so that the time left is estimated from a measured point of each kind.
    """
    first, bands = lines_and_bands(dataset)
    tasks = [WarmTask(c.mechanism, True, config=c) for c in first]
    tasks += [WarmTask(AUDIT_PAGE, True, audit=point) for point in app_audit_points()]
    tasks = _one_of_each_kind_first(tasks)
    stops = [c for c in demo_configs(dataset) if c.seed == DEMO_SEEDS[0]]
    seen = set(first)
    for config, band in [
        *((c, False) for c in stops),
        *((c, True) for c in bands),
        *((c, False) for c in extra or []),
    ]:
        if config not in seen:
            seen.add(config)
            tasks.append(WarmTask(config.mechanism, False, config=config, band=band))
    for mechanism, epsilon in _longest_first(demo_model_audits(ON_COMPARE, dataset), dataset):
        tasks.append(WarmTask(MODEL_AUDITS, False, model_audit=(mechanism, dataset, epsilon)))
    return tasks


def lines_and_bands(dataset: str) -> tuple[list[RunConfig], list[RunConfig]]:
    """The curves' points on the first demo seed (every line) and on the others (the bands)."""
    curves = demo_configs(dataset, class_stops=False)
    first = [c for c in curves if c.seed == DEMO_SEEDS[0]]
    return first, [c for c in curves if c.seed != DEMO_SEEDS[0]]


def _longest_first(audits: list[tuple[str, float]], dataset: str) -> list[tuple[str, float]]:
    """``audits`` by their family's measured seconds, the longest first (else in their order).

    The warm's last point leaves the other workers idle until it ends: DP-SGD's audits (10-14 s
    on digits) last cost the warm 5.6 s of its 497 s against the same audits first, replayed on
    the timeline ``bench/warm_speed.py`` measured at b395e5b.
    """
    rates = reference_rates(dataset)
    return sorted(audits, key=lambda audit: -rates.get(f"{MODEL_AUDIT} {audit[0]}", 0.0))


def _one_of_each_kind_first(tasks: list[WarmTask]) -> list[WarmTask]:
    """``tasks`` with the first task of each kind moved ahead, the order otherwise kept."""
    firsts: dict[tuple, WarmTask] = {}
    for task in tasks:
        firsts.setdefault(task.kind, task)
    probes = set(map(id, firsts.values()))
    return [*firsts.values(), *(task for task in tasks if id(task) not in probes)]


def _is_stored(task: WarmTask, cache: ResultCache) -> bool:
    if task.config is not None:
        return lookup(task.config, cache) is not None
    if task.model_audit is not None:
        mechanism, dataset, epsilon = task.model_audit
        return cached_audit(mechanism, dataset, epsilon, cache=cache) is not None
    return stored_audit_case(*task.audit, cache=cache, compute=False) is not None


@dataclass
class WarmStatus:
    """How far a warm is: points done and left, per page, and the time left (the status file)."""

    dataset: str
    total: int
    done: int = 0
    pid: int = field(default_factory=os.getpid)
    started: float = field(default_factory=time.time)
    updated: float = 0.0
    seconds_left: float | None = None
    state: str = "running"  # running, finished, interrupted, failed
    pages: dict[str, list[int]] = field(default_factory=dict)  # page: [first view done, of]
    failures: list[str] = field(default_factory=list)
    phases: dict[str, list[int]] = field(default_factory=dict)  # phase: [done, of]
    pages_seconds_left: float | None = None  # until every point of the pages' phase is done
    later: int = 0  # model audits missing that this warm leaves for a later one (``until_pages``)
    later_bands: int = 0  # and the curves' band points it leaves so

    def count(self, task: WarmTask, done: bool) -> None:
        """Count ``task`` among its phase's points and its page's first view, done if ``done``."""
        if task.first_view:
            tally = self.pages.setdefault(task.page, [0, 0])
            tally[0] += done
            tally[1] += 1
        phase = self.phases.setdefault(task.phase, [0, 0])
        phase[0] += done
        phase[1] += 1
        self.done += done

    def finished(self, task: WarmTask) -> None:
        """Count ``task``, counted before as not done, as done."""
        if task.first_view:
            self.pages[task.page][0] += 1
        self.phases[task.phase][0] += 1
        self.done += 1

    def first_views_ready(self) -> int:
        """How many pages have every point of their first view done."""
        return sum(done == total for done, total in self.pages.values())

    def running(self) -> bool:
        """Whether the warm that wrote this status is still computing (it writes every 2 s)."""
        fresh = time.time() - self.updated < _STALE_AFTER_S
        return self.state == "running" and fresh and _alive(self.pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def duration_text(seconds: float) -> str:
    """A time left in words: seconds under a minute and a half, else minutes."""
    return f"about {seconds:.0f} s" if seconds < 90 else f"about {seconds / 60:.0f} min"


def left_text(status: WarmStatus) -> str:
    """The time left, the pages' share of it, the first views ready and what waits, in words.

    The one wording of a warm's progress: the command line's lines and the app's panel read it.
    """
    if status.seconds_left is None:
        text = "time left unknown yet"
    else:
        text = f"{duration_text(status.seconds_left)} left"
    audits_done, audits = status.phases.get(MODEL_AUDITS, [0, 0])
    if audits_done < audits:  # model audits after the pages in this warm: when are the pages?
        if status.pages_seconds_left == 0:
            text += " (the pages' points: ready)"
        elif status.pages_seconds_left is not None:
            text += f" (the pages' points: {duration_text(status.pages_seconds_left)})"
    text += f"; first views ready: {status.first_views_ready()}/{len(status.pages)}"
    if status.later or status.later_bands:
        text += f"; {later_words(status.later_bands, status.later)} left for a later warm"
    return text


def later_words(bands: int, audits: int) -> str:
    """The points ``warm --until-pages`` leaves for later, in words ("280 band points and ...")."""
    parts = [(bands, "band points of the curves"), (audits, "model audits")]
    return " and ".join(f"{count} {what}" for count, what in parts if count)


def status_path(cache_dir: Path, dataset: str) -> Path:
    """Where the warm of ``dataset`` keeps its status in the cache folder ``cache_dir``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in dataset)[:80]
    return Path(cache_dir) / f"warm-status-{safe}.json"


def _write_status(path: Path, status: WarmStatus) -> None:
    status.updated = time.time()
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(asdict(status)))
    partial.replace(path)


def read_status(cache_dir: Path, dataset: str) -> WarmStatus | None:
    """The last status a warm of ``dataset`` wrote in ``cache_dir``, or None if there is none."""
    try:
        found = json.loads(status_path(cache_dir, dataset).read_text())
        return WarmStatus(**found)
    except (OSError, ValueError, TypeError):
        return None


def _estimate_left(
    estimate: Estimate, status: WarmStatus, waiting: list[WarmTask], running: dict, workers: int
) -> None:
    """Set ``status``'s seconds left: of every point, and of the pages' phase."""
    done = estimate.finishes(waiting, running, workers)
    status.seconds_left, status.pages_seconds_left = latest(done), latest(done, PAGES)


class _TimedCache(ResultCache):
    """A worker's cache that counts the seconds spent computing what points share.

    A clean baseline, the image clusters or the teacher votes are computed by the first point
    that needs them and read by the others; the time left is estimated from the points' own
    seconds, without these.
    """

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self.shared_seconds, self._depth = 0.0, 0

    def _or_compute(self, kind, payload, compute, required, get, put, by=None):
        if kind == "audit":  # an audit case is a point of its own, shared by none
            return super()._or_compute(kind, payload, compute, required, get, put, by)

        def timed() -> dict:
            started, self._depth = time.perf_counter(), self._depth + 1
            try:
                return compute()
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.shared_seconds += time.perf_counter() - started

        return super()._or_compute(kind, payload, timed, required, get, put, by)


_WORKER_CACHE: _TimedCache | None = None


def _open_cache(cache_dir: str, environ: dict[str, str]) -> None:
    """A worker's start: the warm's environment, an end with the warm's, the cache opened.

    ``environ`` is the warm's environment (:mod:`labeldp_core.experiments.forked_workers`); the
    worker ends with the warm, however the warm ends.
    """
    global _WORKER_CACHE
    adopt_environment(environ)
    end_with_parent()
    _WORKER_CACHE = _TimedCache(cache_dir)


def _compute(task: WarmTask) -> tuple[float, float]:
    """Compute ``task`` into the shared cache (in a worker).

    Returns:
        The seconds it took, and how many of them went to artefacts other points share.
    """
    started, shared = time.perf_counter(), _WORKER_CACHE.shared_seconds
    if task.config is not None:
        compute_points(task, _WORKER_CACHE)
    elif task.model_audit is not None:
        mechanism, dataset, epsilon = task.model_audit
        audit_model(mechanism, dataset, epsilon, cache=_WORKER_CACHE)
    else:
        stored_audit_case(*task.audit, cache=_WORKER_CACHE)
    return time.perf_counter() - started, _WORKER_CACHE.shared_seconds - shared


def _pool(cache_dir: Path, workers: int) -> ProcessPoolExecutor:
    """The warm's workers, forked from its forkserver (started here) as points come."""
    return ProcessPoolExecutor(
        workers,
        mp_context=worker_context(),
        initializer=_open_cache,
        initargs=(str(cache_dir), environment()),
    )


def _plan(
    dataset: str, cache: ResultCache, extra: list[RunConfig] | None, until_pages: bool = False
) -> tuple:
    """The warm's status with what is stored already counted, and the points left, in order.

    With ``until_pages`` the bands and the model audits are not in the plan: those missing are
    counted as left for later.
    """
    status, todo = WarmStatus(dataset, total=0), []
    for task in warm_tasks(dataset, extra):
        stored = _is_stored(task, cache)
        if until_pages and (task.phase != PAGES or task.band):
            if task.band:
                status.later_bands += not stored
            else:
                status.later += not stored
            continue
        status.total += 1
        status.count(task, stored)
        if not stored:
            todo.append(task)
    return status, todo


Progress = Callable[[WarmStatus, str], None]


def run_warm(
    dataset: str,
    cache_dir: Path,
    progress: Progress,
    *,
    workers: int | None = None,
    extra: list[RunConfig] | None = None,
    until_pages: bool = False,
    planned: Callable[[WarmStatus], None] | None = None,
) -> WarmStatus:
    """Compute every point of ``dataset``'s demo set not in the cache at ``cache_dir``.

    ``progress`` is called with the status and a line after every point. With ``until_pages``
    it stops when every first view, slider stop and papers' run is done, the bands and the
    model audits left counted in ``later_bands`` and ``later``. ``planned``
    is called with the status once the points are planned, before any runs: the warm keeps it
    current, so a stop reads how many are done there instead of planning again. Returns the
    final status; a point that failed is named in its ``failures`` (the others still run).
    """
    workers = workers or os.cpu_count() or 1
    cache = ResultCache(cache_dir)
    status, waiting = _plan(dataset, cache, extra, until_pages)
    if planned is not None:
        planned(status)
    waiting = grouped(waiting)
    path = status_path(cache_dir, dataset)
    estimate = Estimate(cache, reference_rates(dataset))
    _write_status(path, status)
    pool = None
    try:
        pool = _pool(cache_dir, workers)
        _drain(pool, workers, waiting, status, estimate, progress, path)
    except BaseException:  # a stop signal, a broken pool: the running points are cut off now
        if pool is not None:
            end_pool(pool)
        end_forkserver()  # it may still be importing, when the stop came as the pool started
        status.state = "interrupted"
        _write_status(path, status)
        raise
    pool.shutdown()
    status.state = "failed" if status.failures else "finished"
    status.seconds_left = status.pages_seconds_left = 0.0
    _write_status(path, status)
    return status


def _drain(pool, workers, waiting, status, estimate, progress, path) -> None:
    """Keep every worker busy with the next point in order until none is left."""
    running: dict[Future, tuple[WarmTask, float]] = {}
    written = 0.0
    while waiting or running:
        while waiting and len(running) < workers:
            task = waiting.pop(_next_task(waiting, [task for task, _ in running.values()]))
            running[pool.submit(_compute, task)] = (task, time.monotonic())
        finished, _ = wait(list(running), timeout=_STATUS_EVERY_S, return_when=FIRST_COMPLETED)
        lines = [
            line
            for future in finished
            for line in _account(future, running.pop(future)[0], status, estimate)
        ]
        if finished or time.monotonic() - written > _STATUS_EVERY_S:
            _estimate_left(estimate, status, waiting, running, workers)
            _write_status(path, status)
            written = time.monotonic()
        for line in lines:
            progress(status, line)


def _next_task(waiting: list[WarmTask], running: list[WarmTask]) -> int:
    """The index in ``waiting`` of the next task to start.

    The first that shares no training with a running task (:attr:`WarmTask.shares_trainings`),
    else the first: a worker is never left idle.
    """
    busy = {task.shares_trainings for task in running} - {None}
    return next(
        (i for i, task in enumerate(waiting) if task.shares_trainings not in busy),
        0,
    )


def _account(future: Future, task: WarmTask, status: WarmStatus, estimate: Estimate) -> list[str]:
    """Count a returned point (or group) as done (or failed); a line per point that says so."""
    try:
        seconds, shared = future.result()
    except Exception as exc:  # a failing point is named; the others go on
        status.failures.append(f"{task.label}: {type(exc).__name__}: {exc}")
        return [f"{task.label} failed: {exc}"]
    points = members(task)
    together = f" for {len(points)} points together" if len(points) > 1 else ""
    for point in points:
        estimate.add(point, (seconds - shared) / len(points))
        status.finished(point)
    return [f"{point.label} ({seconds:.1f} s{together})" for point in points]


def stored_points(
    dataset: str, cache_dir: Path, extra: list[RunConfig] | None = None
) -> tuple[int, int]:
    """How many points of a warm of ``dataset`` (and ``extra``) are stored, and of how many."""
    status, _ = _plan(dataset, ResultCache(cache_dir), extra)
    return status.done, status.total


def coverage(dataset: str, cache_dir: Path, workers: int | None = None) -> WarmStatus:
    """What a warm of ``dataset`` would find in ``cache_dir``: points stored, per page, time left.

    The time left is estimated from the seconds earlier runs of each kind took here (None when a
    kind was never computed here). The state is "finished" when nothing is missing, else
    "incomplete"; a warm running now is told by :func:`read_status`.
    """
    cache = ResultCache(cache_dir)
    status, waiting = _plan(dataset, cache, None)
    status.pid, status.state = 0, "incomplete" if waiting else "finished"
    estimate = Estimate(cache, reference_rates(dataset))
    _estimate_left(estimate, status, waiting, {}, workers or os.cpu_count() or 1)
    return status


def start_warm(dataset: str, cache_dir: Path) -> subprocess.Popen:
    """Start ``python -m labeldp_core warm --dataset DATASET`` on ``cache_dir``, detached.

    It outlives the caller (a page's rerun, a closed tab) and writes its lines to
    ``warm-<dataset>.log`` beside its status file.
    """
    log = status_path(cache_dir, dataset).with_suffix(".log").open("ab")
    env = os.environ | {"LABELDP_CACHE_DIR": str(cache_dir)}
    command = [sys.executable, "-m", "labeldp_core", "warm", "--dataset", dataset]
    with log:
        return subprocess.Popen(
            command,
            cwd=Path(__file__).resolve().parents[1],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
