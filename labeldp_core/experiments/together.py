"""A grid's points computed together: their small models train as one batched model.

Each point runs its own, unchanged runner (:func:`labeldp_core.experiments.run`) in a thread of
its own, and only one thread runs at a time (a baton), so the points' code runs in a fixed order
as it would one after another. A point that reaches a training the batch can take
(:func:`labeldp_core.training.batched.batchable`) hands it over and waits; once every point waits
or is done, the waiting trainings train together (:func:`~labeldp_core.training.batched.
train_together`) and each point goes on with its own outcome and with torch's global generator
where its own run would have left it. Every point's result is therefore byte for byte the one it
gets alone (``tests/experiments/test_together.py``) and is stored under its own key, as ever.

The clean baselines the points share (one per seed) are computed first, together, so no two
points train the same baseline. Points already in the cache are read, not trained.
"""

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

from labeldp_core.cache import ResultCache
from labeldp_core.data.results_store import results_store
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.engine.spec import RunConfig, RunResult
from labeldp_core.engine.timing import timing_key
from labeldp_core.experiments.runner import lookup, run
from labeldp_core.registry import mechanism_spec
from labeldp_core.training.joining import BATCHED_MODELS, ClassifierJob, joined
from labeldp_core.training.settings import TrainOutcome

if TYPE_CHECKING:
    import torch

__all__ = ["CHUNK", "can_train_together", "compute_chunk", "run_together"]

#: The most points that train together: a stopped grid keeps every chunk it finished, and the
#: gain of a larger batch levels off while its memory grows.
CHUNK = 8


def can_train_together(configs: Sequence[RunConfig]) -> bool:
    """Whether ``configs`` (two or more) train a model that can train batched."""
    models = {dict(config.settings).get("model") for config in configs}
    trains = all(mechanism_spec(config.mechanism).trains_model for config in configs)
    return len(configs) > 1 and trains and models <= BATCHED_MODELS


def _batched() -> ModuleType:
    """The batched trainer (and torch with it), loaded when a grid first trains."""
    return import_module("labeldp_core.training.batched")


@dataclass(eq=False)
class _Point:
    """One thread's work and what passes between it and the batch."""

    work: Callable[[], Any]
    resume: threading.Event = field(default_factory=threading.Event)
    job: ClassifierJob | None = None
    trained: "tuple[TrainOutcome, torch.Tensor] | None" = None
    result: Any = None
    error: BaseException | None = None


class _Together:
    """The batch the points' trainings join, and the baton that runs one point at a time."""

    def __init__(self) -> None:
        self._yielded = threading.Event()
        self._current: _Point | None = None

    def train(self, job: ClassifierJob) -> TrainOutcome | None:
        """In a point's thread: wait for ``job`` to train with the others (None: train alone)."""
        if not _batched().batchable(job):
            return None
        point = self._current
        point.job = job
        self._yielded.set()
        point.resume.wait()
        point.resume.clear()
        outcome, random_state = point.trained
        point.trained = None
        import torch  # loaded with the batched trainer

        torch.set_rng_state(random_state)
        return outcome

    def _body(self, point: _Point) -> None:
        joined(self)
        point.resume.wait()
        point.resume.clear()
        try:
            point.result = point.work()
        except BaseException as error:  # handed to the caller, after the other points
            point.error = error
        finally:
            self._yielded.set()

    def _step(self, point: _Point) -> None:
        """Let ``point`` run until it hands over a training or ends."""
        self._current = point
        self._yielded.clear()
        point.resume.set()
        self._yielded.wait()

    def run_all(self, works: Sequence[Callable[[], Any]]) -> list[_Point]:
        """Run every work, its trainings batched with the others'; the points, done."""
        points = [_Point(work) for work in works]
        threads = [threading.Thread(target=self._body, args=(p,), daemon=True) for p in points]
        for thread, point in zip(threads, points, strict=True):
            thread.start()
            self._step(point)
        while waiting := [point for point in points if point.job is not None]:
            trained = _batched().train_together([point.job for point in waiting])
            for point, outcome in zip(waiting, trained, strict=True):
                point.job, point.trained = None, outcome
                self._step(point)
        for thread in threads:
            thread.join()
        return points


def _results(points: list[_Point]) -> list[Any]:
    """The points' results; the first point's error, if any, once every point is done."""
    for point in points:
        if point.error is not None:
            raise point.error
    return [point.result for point in points]


def _baselines(configs: Sequence[RunConfig], cache: ResultCache) -> None:
    """Train the clean baselines the points will read and the cache lacks, together, once each."""
    missing: dict[str, Callable[[], Any]] = {}
    for config in configs:
        spec = mechanism_spec(config.mechanism)
        stored = results_store(cache, config.dataset)
        ctx = RunContext(config, spec.task, stored, silent)
        if spec.trains_model and not ctx.baseline_is_cached():
            missing.setdefault(ctx._baseline_key(), ctx.baseline)
    _results(_Together().run_all(list(missing.values())))


def _chunks(todo: list[RunConfig]) -> Iterator[list[RunConfig]]:
    """The first point alone, then the others :data:`CHUNK` at a time, in order."""
    yield from ([todo[:1]] if todo else [])
    for start in range(1, len(todo), CHUNK):
        yield todo[start : start + CHUNK]


@contextmanager
def _timings_kept(configs: Sequence[RunConfig], cache: ResultCache) -> Iterator[None]:
    """Keep the seconds recorded for points like ``configs`` as they were before the block.

    A page reads them to say how long one point takes alone (:mod:`labeldp_core.engine.timing`);
    a point's seconds in a chunk are the chunk's, which are not.
    """
    kept = {}
    for config in configs:
        held = results_store(cache, config.dataset)
        key = timing_key(held, config)
        kept.setdefault(key, (held, held.get_json(key)))
    try:
        yield
    finally:
        for key, (held, before) in kept.items():
            if before is None:
                held.discard(key)
            else:
                held.put_json(key, before)


def compute_chunk(chunk: Sequence[RunConfig], cache: ResultCache) -> list[RunResult]:
    """Compute ``chunk``'s points (none stored yet) with their trainings together; store each."""
    if len(chunk) == 1:
        return [run(chunk[0], cache)]
    _baselines(chunk, cache)
    works = [lambda c=config: run(c, cache) for config in chunk]
    with _timings_kept(chunk, cache):
        return _results(_Together().run_all(works))


def run_together(
    configs: Sequence[RunConfig], cache: ResultCache | None = None, progress: Progress = silent
) -> list[RunResult]:
    """Compute every point of ``configs`` (or read it from the cache), training them together.

    The first point trains alone, so that it comes back (and its time alone is measured) as
    soon as it would one by one; the others train :data:`CHUNK` at a time, in order, each chunk
    stored when it is done.
    Each result is the one :func:`~labeldp_core.experiments.run` returns for its point, byte for
    byte apart from ``elapsed_s`` (here the time of its chunk until the point was done), and is
    stored under the point's own key. ``progress`` hears of each chunk as it is done.
    """
    cache = ResultCache() if cache is None else cache
    todo = [config for config in configs if lookup(config, cache) is None]
    computed: dict[RunConfig, RunResult] = {}
    for chunk in _chunks(todo):
        computed |= dict(zip(chunk, compute_chunk(chunk, cache), strict=True))
        progress(len(computed) / len(todo), f"{len(computed)} of {len(todo)} points trained")
    results = []
    for config in configs:
        results.append(computed[config] if config in computed else run(config, cache))
    return results
