"""A warm's time left: each point's seconds from what was measured, scheduled on the workers.

A point's seconds come, in this order, from points of its kind seen in this warm (the same
mechanism and settings), from earlier runs of its kind here (:mod:`labeldp_core.engine.timing`),
from points of its family seen in this warm (a mechanism's other settings, the model audits of
another mechanism), and from the per-family seconds a quiet warm measured on the bench
(``warm_rates.json``, written by ``bench/warm_speed.py --write``) scaled by how fast this machine
runs the families seen so far. The last step matters for the model audits, which run after every
page's point and take about twice as long as one: a median of the pages' points left them out
of the time left until the very end (the estimate ran 14-31% short).

The points left are then dealt out in order to the worker that is free first, as the pool does,
so the time left is when the last worker is done, not the sum of seconds split evenly (which
forgets that the last points leave a worker idle).
"""

import heapq
import json
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from labeldp_core.cache import ResultCache
from labeldp_core.engine.timing import estimate_seconds

if TYPE_CHECKING:
    from labeldp_core.services.warm import WarmTask

__all__ = ["RATES_FILE", "Estimate", "family", "latest", "reference_rates"]

#: Each family's median seconds a point in a warm from an empty cache, per dataset (the bench's).
RATES_FILE = Path(__file__).with_name("warm_rates.json")
#: How many points of a kind its prior (the bench's seconds at this speed) counts as.
PRIOR_WEIGHT = 3
#: How many of a family's last points tell the machine's speed.
RECENT = 5
#: The families of a warm's points that are not a mechanism's run.
MODEL_AUDIT, AUDIT_CASE = "model audit", "audit case"


def family(task: "WarmTask") -> str:
    """A point's family: its mechanism, ``model audit MECHANISM`` or ``audit case MECHANISM``.

    The names ``bench/measured.py`` gives the points of a warm's progress lines. An audit case
    is of its mechanism's family: the audit page's cases of one mechanism cost about alike, but
    a LabelDP-Pro case costs some 200 times a randomized-response one, so one median of every
    case said nothing of the cases that came first (see :meth:`Estimate._speed`).
    """
    if task.model_audit is not None:
        return f"{MODEL_AUDIT} {task.model_audit[0]}"
    if task.config is None:
        return f"{AUDIT_CASE} {task.audit[0]}"
    return task.config.mechanism


def reference_rates(dataset: str) -> dict[str, float]:
    """The bench's seconds per point of each family on ``dataset`` (digits' for another set).

    Only their ratios are used (:meth:`Estimate.of`), so another dataset's table still says a
    model audit costs more than a point of Laplace.
    """
    try:
        tables = json.loads(RATES_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = tables.get(dataset) or tables.get("digits") or {}
    return {name: float(seconds) for name, seconds in table.get("costs", {}).items()}


class Estimate:
    """Seconds a point takes, and the time left of a warm's points (see the module's docstring)."""

    def __init__(self, cache: ResultCache, reference: dict[str, float] | None = None) -> None:
        self.cache = cache
        self.reference = {name: s for name, s in (reference or {}).items() if s > 0}
        self.seen: dict[tuple, list[float]] = {}
        self.by_family: dict[str, list[float]] = {}
        self.earlier: dict[tuple, float | None] = {}

    def add(self, task: "WarmTask", seconds: float) -> None:
        """Count a point of ``task``'s kind that took ``seconds``."""
        self.seen.setdefault(task.kind, []).append(seconds)
        self.by_family.setdefault(family(task), []).append(seconds)

    def _speed(self) -> float | None:
        """How much longer this warm's points take than the bench's, lately.

        Each family's median over its last :data:`RECENT` points over the bench's seconds, and
        the median of that over the families seen :data:`RECENT` times after their first point
        (else those seen after it, else all). Recent points, because the machine's load changes
        during a warm; a family's first point aside and families seen often, because its first
        points pay what its others do not (a worker's imports) or compute what they read (a
        baseline, the teachers' votes): in a warm's first minute, when most families had their
        first point alone, those said the machine ran twice as slow as it did; a median over
        families, because a family whose cost changed since the bench measured it must not set
        the speed of the others.
        """
        measured = {f: s for f, s in self.by_family.items() if f in self.reference}
        later = {f: s[1:] for f, s in measured.items() if len(s) > 1}
        settled = {f: s for f, s in later.items() if len(s) >= RECENT} or later or measured
        ratios = [statistics.median(s[-RECENT:]) / self.reference[f] for f, s in settled.items()]
        return statistics.median(ratios) if ratios else None

    def _bench(self, task: "WarmTask") -> float | None:
        """The bench's seconds for ``task``'s family (else any model audit's or audit case's)."""
        found = self.reference.get(family(task))
        if found is None and task.config is None:
            found = self.reference.get(MODEL_AUDIT if task.model_audit else AUDIT_CASE)
        return found

    def _prior(self, task: "WarmTask") -> float | None:
        """What a point of ``task``'s kind takes by earlier runs here, or by the bench's seconds."""
        if task.config is not None and task.kind not in self.earlier:
            self.earlier[task.kind] = estimate_seconds(self.cache, [task.config])
        if self.earlier.get(task.kind) is not None:
            return self.earlier[task.kind]
        speed, bench = self._speed(), self._bench(task)
        return None if speed is None or bench is None else speed * bench

    def of(self, task: "WarmTask") -> float | None:
        """Seconds ``task``'s point takes; None while nothing tells.

        The median of the points of its kind seen, weighed against its prior by their number
        (a kind's first points often compute what its others will read, a clean baseline or the
        teachers' votes, and would make it look slower than it is); without a prior, points of
        its family (a mechanism's other settings), then any point.
        """
        prior, seen = self._prior(task), self.seen.get(task.kind, [])
        if seen and prior is not None:
            weight = len(seen) + PRIOR_WEIGHT
            return (len(seen) * statistics.median(seen) + PRIOR_WEIGHT * prior) / weight
        if seen or prior is not None:
            return statistics.median(seen) if seen else prior
        name = family(task)
        if name in self.by_family:
            return statistics.median(self.by_family[name])
        every = [s for found in self.seen.values() for s in found]
        return statistics.median(every) if every else None

    def finishes(
        self, waiting: list["WarmTask"], running: dict, workers: int
    ) -> list[tuple["WarmTask", float]] | None:
        """Each point (running, then waiting) and the seconds from now until it is done.

        ``running`` maps a future to (task, when it started); the waiting points go in order
        to the worker that is free first, as the pool gives them out. A group that trains
        together (:mod:`labeldp_core.services.warm_together`) weighs as many points as it holds.
        None while a point's seconds are unknown.
        """
        per_kind: dict[tuple, float | None] = {}  # a point's seconds depend on its kind alone

        def seconds(task: "WarmTask") -> float | None:
            kind = task.kind
            if kind not in per_kind:
                per_kind[kind] = self.of(task)
            return None if per_kind[kind] is None else per_kind[kind] * task.size

        now, done = time.monotonic(), []
        for task, started in running.values():
            if (spent := seconds(task)) is None:
                return None
            done.append((task, max(0.0, spent - (now - started))))
        free = [at for _, at in done] + [0.0] * max(0, workers - len(done))
        heapq.heapify(free)
        for task in waiting:
            if (spent := seconds(task)) is None:
                return None
            done.append((task, heapq.heappop(free) + spent))
            heapq.heappush(free, done[-1][1])
        return done

    def left(
        self, waiting: list["WarmTask"], running: dict, workers: int, phase: str | None = None
    ) -> float | None:
        """Seconds until every point (of ``phase``, if given) is done; None while unknown."""
        return latest(self.finishes(waiting, running, workers), phase)


def latest(done: list[tuple["WarmTask", float]] | None, phase: str | None = None) -> float | None:
    """When the last of :meth:`Estimate.finishes`' points (of ``phase``, if given) is done."""
    if done is None:
        return None
    return max((at for task, at in done if phase in (None, task.phase)), default=0.0)
