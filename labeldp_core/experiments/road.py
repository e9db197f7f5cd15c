"""One road from a caller to its stored results: look-up, estimate and computation in one place.

A page asks for its point once: :meth:`Road.plan` looks it up (from memory after the first read,
the same :class:`RunResult` object every time), and for a point that is missing says in the
same descent what computing it takes (an estimate from this machine's past runs), whether it is
computed without a click, and which computed neighbours an estimate of its score can be read
from. :meth:`Road.computed` then computes it from its plan. A config on this road was made, and its
ε checked, once by :func:`~labeldp_core.experiments.runner.make_config`; it is not checked again.

Where a point is kept (its dataset's store,
:func:`~labeldp_core.data.results_store.results_store`) and what the registry says of it
(:func:`~labeldp_core.registry.registration`) are found once per point, and a missing point's
plan carries them to its computation: a built-in dataset's point is kept in the cache itself and
never enters the code that keeps a user's own tables.
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from labeldp_core.cache import ResultCache
from labeldp_core.data import dataset_info
from labeldp_core.data.results_store import results_store
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.engine.spec import Registered, RunConfig, RunResult
from labeldp_core.engine.timing import QUICK_S, estimate_seconds, median_seconds
from labeldp_core.experiments.demo import on_demo_grid, point_epsilons
from labeldp_core.experiments.runner import fresh_result, stored_result, sweep_configs
from labeldp_core.experiments.service import ComputeService
from labeldp_core.registry import registration

__all__ = ["AUTO_COMPUTE_MAX_IMAGES", "Plan", "Road", "Where", "computes_at_once"]

#: Datasets up to this size compute a point never timed here at once (that run is the first
#: measurement); a point with an estimate is computed without a click only under QUICK_S.
AUTO_COMPUTE_MAX_IMAGES = 5000
#: How often a caller waiting on a compute service's job is told its progress, in seconds.
_PROGRESS_POLL_S = 0.25


@dataclass(frozen=True)
class Where:
    """Where a point's result is kept and what the registry says of it: found once per point.

    Attributes:
        store: the store that keeps the point's dataset (the cache, or a table's own).
        registered: what the registry says of its mechanism (spec, code unit, card).
    """

    store: ResultCache
    registered: Registered


@dataclass(frozen=True)
class Plan:
    """What one descent found for a point: its stored result, or what computing it takes.

    Attributes:
        config: the point.
        result: its stored result (``cached=True``), or None if it is missing.
        seconds: for a missing point, seconds to compute it from this machine's past runs of
            its settings; None if they never ran here.
        at_once: whether a missing point is computed without a click (:func:`computes_at_once`).
        neighbours: for a missing point waiting for a click, the test accuracy of each computed
            point at the epsilons `warm` computes around it (same settings and seed), by epsilon.
        where: for a missing point, where it is kept, as its look found it: what
            :meth:`Road.computed` computes it with. Not what was found: not compared.
    """

    config: RunConfig
    result: RunResult | None
    seconds: float | None = None
    at_once: bool = False
    neighbours: dict[float, float] = field(default_factory=dict)
    where: Where | None = field(default=None, compare=False, repr=False)


def computes_at_once(configs: Sequence[RunConfig], seconds: float | None) -> bool:
    """Whether ``configs``, estimated to take ``seconds``, are computed without a click.

    Only demo-grid points (grid epsilons, seeds, default epochs and settings: what `warm`
    computes) ever are, so a link or a dragged slider cannot start unbounded work. Then yes
    when the estimate is under QUICK_S, or, with no estimate yet, for a single point on a small
    dataset (its run is the first measurement).
    """
    if not all(on_demo_grid(config) for config in configs):
        return False
    if seconds is not None:
        return seconds < QUICK_S
    return len(configs) == 1 and dataset_info(configs[0].dataset).size <= AUTO_COMPUTE_MAX_IMAGES


class Road:
    """The results of one cache, each read from disk once and then kept as the same object.

    One per server process (the app holds it as a resource): every session is handed the same
    frozen :class:`RunResult`, never a copy decoded again. A miss is not kept, so a point
    computed later (here, by a worker, on a cluster) is found on the next look.

    Args:
        cache: the result cache; a user's table keeps its results in a store of its own.
        kept: at most this many results are kept in memory (the least recently used go).
    """

    def __init__(self, cache: ResultCache, kept: int = 4096) -> None:
        self.cache = cache
        self._kept = kept
        self._results: OrderedDict[RunConfig, RunResult] = OrderedDict()
        self._lock = threading.Lock()

    def stored(self, config: RunConfig) -> RunResult | None:
        """``config``'s stored result or None, from memory after the first read.

        The plan of a caller that computes nothing (:meth:`plan` with ``computes=False``).
        """
        return self.plan(config, computes=False).result

    def plan(self, config: RunConfig, computes: bool = True) -> Plan:
        """``config``'s stored result, or what computing it takes: the page's one look.

        A caller that computes nothing (``computes=False``: a read-only server) is told only
        whether the point is stored.
        """
        found = self._remembered(config)
        if found is not None:
            return Plan(config, found)
        where = self._where(config)
        return self._looked_up(config, where, computes)

    def _where(self, config: RunConfig) -> Where:
        return Where(results_store(self.cache, config.dataset), registration(config.mechanism))

    def _looked_up(self, config: RunConfig, where: Where, computes: bool) -> Plan:
        """The plan of a point not in memory, read from where it is kept.

        ``where`` is found once: read for the result and, if it is missing, for the seconds its
        settings took here before, for its neighbours and for its computation.
        """
        found = self._read(config, where)
        if found is not None:
            return Plan(config, found)
        if not computes:
            return Plan(config, None, where=where)
        seconds = median_seconds(where.store, config)
        if computes_at_once([config], seconds):
            return Plan(config, None, seconds, at_once=True, where=where)
        neighbours = self._neighbours(config, where)
        return Plan(config, None, seconds, neighbours=neighbours, where=where)

    def _remembered(self, config: RunConfig) -> RunResult | None:
        with self._lock:
            found = self._results.get(config)
            if found is not None:
                self._results.move_to_end(config)
            return found

    def _read(self, config: RunConfig, where: Where) -> RunResult | None:
        """``config``'s result read from where it is kept, and remembered."""
        found = stored_result(config, where.store, where.registered)
        if found is not None:
            with self._lock:
                self._results[config] = found
                while len(self._results) > self._kept:
                    self._results.popitem(last=False)
        return found

    def estimate(self, configs: Sequence[RunConfig]) -> float | None:
        """Seconds to compute ``configs`` here, from past runs; None if one never ran here."""
        return estimate_seconds(self.cache, configs)

    def _neighbours(self, config: RunConfig, kept: Where) -> dict[float, float]:
        """The test accuracy of each computed point among those `warm` computes beside it.

        The points at :func:`~labeldp_core.experiments.demo.point_epsilons` with ``config``'s
        seed, epochs and settings, by epsilon: what an estimate of its score is read off. They
        share its mechanism and dataset, so they are ``kept`` where it is.
        """
        grid = point_epsilons(config.mechanism, config.dataset)
        where = (config.mechanism, config.dataset, grid, (config.seed,), config.epochs)
        known = {}
        for neighbour in sweep_configs(*where, dict(config.settings)):
            result = self._remembered(neighbour) or self._read(neighbour, kept)
            if result is not None and result.test_accuracy is not None:
                known[neighbour.epsilon] = result.test_accuracy
        return known

    def missing(self, config: RunConfig) -> Plan:
        """The plan of a point its caller found missing (:meth:`stored`), for :meth:`computed`.

        Only where it is kept is found: it is not looked up again.
        """
        return Plan(config, None, where=self._where(config))

    def computed(
        self, plan: Plan, progress: Progress = silent, service: ComputeService | None = None
    ) -> RunResult:
        """Compute the point that ``plan`` found missing (no second look), store it, return it.

        By ``service``'s workers (shared with every caller who waits for the same point; leaving
        early releases it), or here in this thread without one, where the plan found it kept.
        """
        if service is not None:
            with service.waiting(plan.config) as job:
                while not job.wait(_PROGRESS_POLL_S):
                    progress(job.fraction, job.status())
                return job.result()
        if plan.where is None:
            raise ValueError(f"not the plan of a missing point: {plan.config!r}")
        return fresh_result(plan.config, plan.where.store, plan.where.registered, progress)
