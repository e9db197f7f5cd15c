"""Points computed on a cluster and stored by the client, each as soon as it returns.

Workers compute; the client stores. Each task returns the cache entries its computation found or
stored, each with its identity (see :mod:`labeldp_core.cluster.worker`); the client checks them
(every entry's identity must hash to its key under this code, as ``cache import`` checks, and the
entry must decode as JSON or pickle-free arrays; a run's result must pass the result schema, name
the point it was asked for and sit under that point's key) and writes them, with their
identities, to its own cache. A malformed answer is an error for that point, never a poisoned
cache. Unlike an archive, a worker's answer may hold the artefacts the privacy proofs rely on
(clusters, embeddings, votes, utilities, clean outputs): the worker runs the client's code
(checked) on a machine the client trusts (see the README, *On the wire*). Points already in the
client's cache are not sent; an interrupted client loses only the points not yet returned, and a
rerun sends only those. A worker that dies mid-point (killed, out of memory) is
replaced by Dask and its point is run again elsewhere; a point that raises is reported with its
config and the worker's error text while the others go on.
"""

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from labeldp_core.cache import CorruptEntryError, ResultCache
from labeldp_core.cluster.session import ClusterSession
from labeldp_core.cluster.worker import (
    Entry,
    compute_audit_case,
    compute_model_audit_training,
    compute_point,
    task_identity,
)
from labeldp_core.data.tables import is_table
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.engine.timing import record_seconds, timing_key
from labeldp_core.errors import InvalidInputError, LabelDPError
from labeldp_core.experiments import RunConfig, RunResult, lookup, make_config
from labeldp_core.experiments.runner import result_key
from labeldp_core.services.cache_transfer import checked_kind, result_problem

__all__ = [
    "ClusterReport",
    "PointFailure",
    "audit_on_cluster",
    "model_audits_on_cluster",
    "refuse_tables",
    "run_on_cluster",
]

#: How often a task is run again after its worker died (Dask's ``retries``).
RETRIES = 2


@dataclass(frozen=True)
class PointFailure:
    """A point that could not be computed: what was asked and the worker's error text."""

    point: str
    error: str


@dataclass
class ClusterReport:
    """What a run on the cluster did: points stored now, found already stored, and failures.

    ``results`` holds every point's result that is stored now, in the order the points were
    given (a run's ``cached`` is False where the cluster computed it).
    """

    computed: int = 0
    cached: int = 0
    failures: list[PointFailure] = field(default_factory=list)
    results: list = field(default_factory=list)

    def summary(self) -> str:
        """One line per failure after a line of counts."""
        lines = [
            f"{self.computed} points computed on the cluster and stored, {self.cached} "
            f"already stored, {len(self.failures)} failed"
        ]
        lines += [f"failed: {failure.point}: {failure.error}" for failure in self.failures]
        return "\n".join(lines)


def run_on_cluster(
    session: ClusterSession,
    configs: Sequence[RunConfig],
    cache: ResultCache,
    progress: Progress = silent,
) -> ClusterReport:
    """Compute the points of ``configs`` missing from ``cache`` on the cluster; store each one."""
    refuse_tables(configs)
    found = {config: lookup(config, cache) for config in configs}
    identity = task_identity()
    tasks = {
        _submit(session, compute_point, config.to_dict(), identity, _run_label(config)): config
        for config, result in found.items()
        if result is None
    }

    def store(config: RunConfig, entries: list[Entry]) -> None:
        found[config] = replace(_store_run(cache, config, entries), cached=False)
        record_seconds(cache, config, found[config].elapsed_s)

    report = _collect(tasks, store, _run_label, progress)
    report.cached = len(configs) - len(tasks)
    report.results = [found[config] for config in configs if found[config] is not None]
    return report


def audit_on_cluster(
    session: ClusterSession,
    points: Sequence[tuple],
    cache: ResultCache,
    progress: Progress = silent,
) -> ClusterReport:
    """Compute audit cases ``(mechanism, epsilon, index, trials, seed)`` missing from ``cache``."""
    from labeldp_core.services.release_audits import stored_audit_case

    points = [tuple(point) for point in points]
    found = {point: stored_audit_case(*point, cache=cache, compute=False) for point in points}
    identity = task_identity()
    tasks = {
        _submit(session, compute_audit_case, point, identity, _audit_label(point)): point
        for point, result in found.items()
        if result is None
    }

    def store(point: tuple, entries: list[Entry]) -> None:
        _store_entries(cache, entries)
        found[point] = stored_audit_case(*point, cache=cache, compute=False)
        if found[point] is None:
            raise _MalformedAnswerError("the worker did not return this audit case's result")

    report = _collect(tasks, store, _audit_label, progress)
    report.cached = len(points) - len(tasks)
    report.results = [found[point] for point in points if found[point] is not None]
    return report


def model_audits_on_cluster(
    session: ClusterSession,
    points: Sequence[dict],
    cache: ResultCache,
    progress: Progress = silent,
) -> ClusterReport:
    """Trained models' canary audits, every training of every audit side by side on the cluster.

    Each point holds :func:`~labeldp_core.model_audit.audit_model`'s arguments (``mechanism``,
    ``dataset``, ``epsilon`` and any of ``canaries``, ``seed``, ``epochs``, ``settings``, ``kind``,
    ``guess_share``). The
    audits the client's cache holds are not sent; ``results`` holds each audit stored now, in
    the order of ``points`` (read from the client's cache, as an audit computed here would be).
    """
    from labeldp_core.model_audit import TRAININGS, cached_audit

    refuse_tables([make_config(p["mechanism"], p["dataset"], p["epsilon"]) for p in points])

    found = [cached_audit(**point, cache=cache) for point in points]
    identity = task_identity()
    tasks = {
        _submit(session, compute_model_audit_training, task, identity, _model_label(task)): task
        for point, audit in zip(points, found, strict=True)
        if audit is None
        for task in ((point, index) for index in range(len(TRAININGS)))
    }

    def store(_: tuple, entries: list[Entry]) -> None:
        _store_entries(cache, entries)

    report = _collect(tasks, store, _model_label, progress)
    report.cached = sum(audit is not None for audit in found)
    audits = (
        audit if audit is not None else cached_audit(**point, cache=cache)
        for point, audit in zip(points, found, strict=True)
    )
    report.results = [audit for audit in audits if audit is not None]
    return report


def refuse_tables(configs: Sequence[RunConfig], named: Sequence[str] = ()) -> None:
    """Refuse points on a table of the user's own: its workers do not have the table.

    ``named`` are tables known by another name (``file:PATH``), refused before being prepared.
    """
    tables = sorted({config.dataset for config in configs if is_table(config.dataset)})
    if tables or named:
        raise InvalidInputError(
            f"{', '.join([*named, *tables])} is a table of your own, kept on this machine only: "
            "compute its points here (leave --workers and --scheduler out)"
        )


class _MalformedAnswerError(LabelDPError):
    """A worker's answer that does not hold what was asked."""


def _submit(session: ClusterSession, function, argument, identity: dict, label: str) -> object:
    key = f"labeldp {label} {time.monotonic_ns()}".replace("ε", "eps").replace(" ", "-")
    return session.client.submit(function, argument, identity, key=key, pure=False, retries=RETRIES)


def _collect(tasks: dict, store, label, progress: Progress) -> ClusterReport:
    """Store each task's answer as it returns; a failed task becomes a PointFailure."""
    from distributed import as_completed

    report = ClusterReport()
    total = len(tasks)
    progress(0.0, f"{total} points sent to the cluster" if total else "nothing to compute")
    for done, future in enumerate(as_completed(list(tasks)), start=1):
        point = tasks[future]
        try:
            store(point, future.result())
            report.computed += 1
        except Exception as exc:  # any error of a worker or its answer fails this point only
            report.failures.append(PointFailure(_point_text(point), _error_text(exc)))
        finally:
            future.release()
        progress(done / total, f"{done}/{total} points returned ({label(point)})")
    return report


def _error_text(exc: BaseException, limit: int = 400) -> str:
    """The error's type and message on one line, cut to ``limit`` characters."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}".rstrip(": ")


def _run_label(config: RunConfig) -> str:
    return f"{config.mechanism} ε={config.epsilon:g} seed={config.seed}"


def _audit_label(point: tuple) -> str:
    return f"audit {point[0]} ε={point[1]:g} case {point[2]}"


def _model_label(task: tuple) -> str:
    point, index = task
    return f"model audit {point['mechanism']} ε={point['epsilon']:g} training {index + 1}"


def _point_text(point: RunConfig | tuple) -> str:
    """The whole point, for a failure: a run's config as JSON, an audit's arguments."""
    if isinstance(point, RunConfig):
        return json.dumps(point.to_dict(), sort_keys=True)
    if isinstance(point[0], dict):  # a model audit's training: (point, index)
        return f"model audit training {point[1] + 1} " + json.dumps(point[0], sort_keys=True)
    return "audit case " + json.dumps(
        dict(zip(("mechanism", "epsilon", "index", "trials", "seed"), point, strict=True))
    )


def _store_run(cache: ResultCache, config: RunConfig, entries: list[Entry]) -> RunResult:
    """Check the returned run, then store its entries; the result as the client reads it.

    The result must decode, pass the result schema, sit under the key of the point asked for,
    and every artefact it names must come with it (or be stored here already).
    """
    key = result_key(cache, config)
    answers = {entry[0]: entry for entry in entries}
    if key not in answers or answers[key][1] != "json":
        raise _MalformedAnswerError("the worker's answer holds no result for this point")
    try:
        value = json.loads(answers[key][2])
    except (ValueError, RecursionError):
        raise _MalformedAnswerError("the worker's result is not JSON") from None
    problem = result_problem(cache, key, value) if isinstance(value, dict) else "not an object"
    if problem or not all(name in value for name in ("mechanism", "epsilon_spent")):
        raise _MalformedAnswerError(f"the worker's result is refused: {problem or 'no result'}")
    named = [v for k, v in value.get("details", {}).items() if k.endswith("_artifact")]
    if any(name not in answers and cache.entry(name) is None for name in named):
        raise _MalformedAnswerError("the worker's result names an artefact it did not return")
    _store_entries(cache, [e for e in entries if e[0] not in (key, timing_key(cache, config))])
    _store_entries(cache, [answers[key]], replace=True)
    result = lookup(config, cache)
    if result is None:
        raise _MalformedAnswerError("the worker's result does not read back as this point's")
    return result


def _store_entries(cache: ResultCache, entries: list[Entry], replace: bool = False) -> None:
    """Check every entry, then store those the client does not hold yet (all if ``replace``).

    As ``cache import`` does (:func:`~labeldp_core.services.cache_transfer.checked_kind`), every
    entry's identity must hash to its key, every entry must decode as JSON or pickle-free arrays,
    and a run result among them must sit under its own point's key; one bad entry stores none of
    them.
    """
    for key, kind, body, identity in entries:
        try:
            checked_kind(cache, key, kind, body, identity)
        except (CorruptEntryError, ValueError, RecursionError) as exc:
            raise _MalformedAnswerError(
                f"a returned cache entry ({str(key)[:12]}) is refused: {exc}"
            ) from None
    for key, kind, body, identity in entries:
        if replace or cache.entry(key) is None:
            cache.put_entry(key, kind, body, identity)
