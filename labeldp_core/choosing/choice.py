"""Choose ε on a dataset: each mechanism's curve read from the cache, answered, and narrowed.

The curves are the demo grid's (default settings, every seed), as Compare draws them, plus every
point an earlier bisection computed (for any target); reading never computes. With ``compute``
the answers, best first, are narrowed by bisection (:mod:`labeldp_core.choosing.bisection`) for
at most ``max_trainings`` runs in all, each cached as it finishes. With ``fill`` too, a
mechanism without an answer is first searched coarsely (:mod:`labeldp_core.choosing.coarse`),
the cheapest mechanisms first, so an empty cache answers; one the budget left unsettled is
named with the most runs it may still need.
"""

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from labeldp_core.base.numbers import score_text
from labeldp_core.cache import ResultCache
from labeldp_core.choosing.answer import Answer, choose, protection_gap
from labeldp_core.choosing.bisection import CLOSE, Fetch, bisect, next_epsilon, read_tree
from labeldp_core.choosing.clean_reference import clean_reference
from labeldp_core.choosing.coarse import Missing, next_coarse, trainings_left
from labeldp_core.choosing.curves import Curve, CurvePoint, curve_point
from labeldp_core.choosing.target import Target
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.engine.timing import estimate_seconds, spoken_duration
from labeldp_core.errors import InvalidInputError, LabelDPError
from labeldp_core.experiments import MECHANISMS, RunConfig, lookup, mechanism_spec, run
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, demo_epsilons

__all__ = ["ANSWER_TRAININGS", "DEFAULT_TRAININGS", "USE_OF_DATA", "Choice", "choose_epsilon"]

#: Issue 38, section 4: reading these curves to pick ε is itself a use of the private data.
USE_OF_DATA = (
    "Choosing ε is itself a use of the data: these curves were computed on the private labels, "
    "and picking ε from them spends privacy that no accountant here records. On the bundled "
    "public datasets this is a teaching exercise; on a table of your own, choose on a public "
    "proxy (a bundled dataset of the same shape, or a public sample) and say which."
)
#: The most runs a narrowing (the page's button) makes unless told otherwise: four bisection
#: steps of 3 seeds.
DEFAULT_TRAININGS = 12
#: The most runs ``choose --compute`` makes unless told otherwise: on digits, from an empty
#: cache, the coarse search of the cheapest mechanisms (2 points of 3 seeds each) then bisection.
ANSWER_TRAININGS = 36


@dataclass(frozen=True)
class Choice:
    """The answers on a dataset, best first, and what they left out or computed."""

    dataset: str
    target: Target
    answers: tuple[Answer, ...]
    #: Mechanisms not answered, each with why (its privacy unit, its task, its configs).
    skipped: tuple[tuple[str, str], ...] = ()
    #: Runs of the grid not in the cache: the epsilons they belong to are left out of a curve.
    missing: int = 0
    #: Runs this call computed.
    trainings: int = 0
    #: The runs bisection would compute first, best answer first (one ε per answer, every seed).
    next_runs: tuple[RunConfig, ...] = ()
    notes: tuple[str, ...] = field(default=(USE_OF_DATA,))
    #: Mechanisms the budget left without an answer, each with the most runs that settle it.
    unsettled: tuple[tuple[str, int], ...] = ()
    #: Why no ε can reach the target (it is beyond every clean model), when it is; else "".
    beyond: str = ""
    #: The curves the answers were read from (for a nearest target; not in the JSON).
    curves: tuple[Curve, ...] = field(default=(), repr=False, compare=False)

    @property
    def more_trainings(self) -> int:
        """The most runs that would settle every mechanism the budget left without an answer."""
        return sum(runs for _, runs in self.unsettled)

    @property
    def coarse(self) -> tuple[Answer, ...]:
        """The answers bisection would narrow: interpolated between points over 10% apart."""
        return tuple(a for a in self.reached if a.below is not None and a.above > CLOSE * a.below)

    @property
    def reached(self) -> tuple[Answer, ...]:
        """The answers that reach the target."""
        return tuple(a for a in self.answers if a.reached)

    def to_dict(self) -> dict[str, Any]:
        """The choice as JSON-ready fields."""
        return {
            "dataset": self.dataset,
            "target": self.target.describe(),
            "answers": [a.to_dict() for a in self.answers],
            "skipped": [{"mechanism": m, "reason": r} for m, r in self.skipped],
            "missing_runs": self.missing,
            "trainings": self.trainings,
            "unsettled": [{"mechanism": m, "trainings": n} for m, n in self.unsettled],
            "more_trainings": self.more_trainings,
            "notes": list(self.notes),
        }


class _Budget:
    """How many runs a call may still compute, and how many it did."""

    def __init__(self, trainings: int) -> None:
        self.total, self.used = trainings, 0

    def allows(self, runs: int) -> bool:
        return self.used + runs <= self.total


def _candidates(target: Target, mechanisms: Sequence[str] | None) -> tuple[list[str], list]:
    """The mechanisms that can answer ``target``, and the others with why not."""
    task = "regression" if target.kind == "mse" else "classification"
    chosen, skipped = [], []
    other = "MSE" if task == "classification" else "accuracy"
    for mechanism in MECHANISMS if mechanisms is None else mechanisms:
        spec = mechanism_spec(mechanism)
        gap = protection_gap(target.unit, spec.privacy_unit)
        if spec.task != task:
            skipped.append((mechanism, f"it is scored by {other}"))
        elif gap is not None:
            skipped.append((mechanism, gap))
        else:
            chosen.append(mechanism)
    return chosen, skipped


def _read_curve(
    mechanism: str, configs: Sequence[RunConfig], cache: ResultCache, metric: str
) -> tuple[Curve | None, int]:
    """The curve of the cached runs of ``configs`` (epsilons with every seed), and runs missing."""
    by_epsilon: dict[float, list] = defaultdict(list)
    for config in configs:
        by_epsilon[config.epsilon].append(lookup(config, cache))
    points = [curve_point(rs) for _, rs in sorted(by_epsilon.items()) if None not in rs]
    missing = sum(r is None for rs in by_epsilon.values() for r in rs)
    if not points:
        return None, missing
    return Curve(mechanism, MECHANISMS[mechanism].privacy_unit, metric, tuple(points)), missing


def _fetcher(
    seeds: Sequence[RunConfig], cache: ResultCache, budget: _Budget | None, progress: Progress
) -> Fetch:
    """Read the point at an ε (one run per seed of ``seeds``); compute it if ``budget`` allows."""

    def fetch(epsilon: float):
        try:
            return _point_at(epsilon)
        except LabelDPError:  # the mechanism refuses this ε (or a setting at it): no point
            return None

    def _point_at(epsilon: float):
        configs = [replace(config, epsilon=epsilon) for config in seeds]
        results = []
        for config in configs:
            results.append(lookup(config, cache))
            if results[-1] is None and budget is None:
                return None  # reading only: the first seed missing settles it
        absent = [c for c, r in zip(configs, results, strict=True) if r is None]
        if absent and (budget is None or not budget.allows(len(absent))):
            return None
        seconds = estimate_seconds(cache, absent)
        left = "time not known yet" if seconds is None else spoken_duration(seconds)
        for config in absent:
            where = f"{config.mechanism} at ε = {epsilon:g}, seed {config.seed}"
            progress(budget.used / budget.total, f"{where} ({left} for this ε)")
            results[configs.index(config)] = run(config, cache)
            budget.used += 1
        return curve_point(results)

    return fetch


def choose_epsilon(
    dataset: str,
    target: Target,
    *,
    mechanisms: Sequence[str] | None = None,
    seeds: Sequence[int] = DEMO_SEEDS,
    epochs: int | None = None,
    model: str | None = None,
    cache: ResultCache | None = None,
    compute: bool = False,
    fill: bool = False,
    max_trainings: int = DEFAULT_TRAININGS,
    progress: Progress = silent,
    refuse_beyond_clean: bool = True,
) -> Choice:
    """Each mechanism's smallest ε on ``dataset`` reaching ``target``, best first.

    The curves are the demo grid's at ``seeds``, ``epochs`` and ``model`` (None: the defaults,
    as `warm` computes them). Without ``compute`` nothing is trained: the answer rests on cached
    runs only. With it, at most ``max_trainings`` runs narrow the answers, best first, by
    bisection; with ``fill`` too, they first search each mechanism without an answer coarsely.
    Without ``refuse_beyond_clean``, a target beyond every clean model is answered (nothing
    reaches it) with why in ``beyond``, so a page can offer the nearest target that is reached.

    Raises:
        InvalidInputError: if the target is beyond every clean model (no ε can reach it) and
            ``refuse_beyond_clean``.
    """
    if compute and (isinstance(max_trainings, bool) or not 1 <= max_trainings <= 10_000):
        raise InvalidInputError(f"at most N trainings takes N in 1..10000, got {max_trainings!r}")
    cache = ResultCache() if cache is None else cache
    names, skipped = _candidates(target, mechanisms)
    grid = (seeds, epochs, model)
    curves, templates, missing = _read_all(dataset, target, names, grid, cache, skipped)
    beyond = _beyond_clean(dataset, target, curves, len(curves) == len(templates))
    if beyond and refuse_beyond_clean:
        raise InvalidInputError(beyond)
    budget, unsettled = _Budget(max_trainings if compute else 0), ()
    work = _Work(templates, cache, budget, progress)
    if compute and fill and not beyond:
        curves, unsettled = _fill(curves, target, work, skipped)
        beyond = _beyond_clean(dataset, target, curves, len(curves) == len(templates))
        if beyond and refuse_beyond_clean:
            raise InvalidInputError(beyond)
    if target.kind == "within" and curves:
        target = replace(target, clean=_common_clean(curves, dataset, grid, cache))
    if compute:
        curves = _narrow(curves, target, work)
    if budget.used:  # the runs made count as cached now
        missing = _read_all(dataset, target, names, grid, cache, [])[2]
    answers = choose(curves, target)
    by_name = {c.mechanism: c for c in curves}
    upcoming = [
        replace(config, epsilon=epsilon)
        for found in answers
        if (epsilon := _next(by_name[found.mechanism], target)) is not None
        for config in templates[found.mechanism]
    ]
    return Choice(
        dataset,
        target,
        tuple(answers),
        tuple(skipped),
        missing,
        budget.used,
        next_runs=tuple(upcoming),
        unsettled=unsettled,
        beyond=beyond,
        curves=tuple(curves),
    )


def _next(curve: Curve, target: Target) -> float | None:
    """The ε bisection computes next for ``curve`` (its mechanism's grid ε first)."""
    return next_epsilon(curve, target, grid=demo_epsilons(curve.mechanism))


@dataclass(frozen=True)
class _Work:
    """What computing points takes: the runs, the cache, the budget and the progress.

    ``templates`` holds each mechanism's runs at one ε (one per seed), the template of a point.
    """

    templates: dict[str, list[RunConfig]]
    cache: ResultCache
    budget: _Budget
    progress: Progress

    def fetch(self, mechanism: str) -> Fetch:
        """Read or compute ``mechanism``'s point at an ε, while the budget lasts."""
        return _fetcher(self.templates[mechanism], self.cache, self.budget, self.progress)


def _narrow(curves: list[Curve], target: Target, work: _Work) -> list[Curve]:
    """``curves`` narrowed by bisection, the best answer first, while the budget lasts."""
    by_name = {c.mechanism: c for c in curves}
    for found in choose(curves, target):
        name = found.mechanism
        grid = demo_epsilons(name)
        by_name[name] = bisect(by_name[name], target, work.fetch(name), grid=grid)
    work.progress(1.0, f"{work.budget.used} runs computed")
    return list(by_name.values())


def _fill(
    curves: list[Curve], target: Target, work: _Work, skipped: list
) -> tuple[list[Curve], tuple[tuple[str, int], ...]]:
    """Each mechanism's coarse search, the cheapest first, while the budget lasts.

    A point is computed only when all its missing seeds fit in the budget; a mechanism whose
    next point does not fit waits, and the next one (maybe partly cached) is tried. Returns the
    curves and the mechanisms left unsettled, each with the most runs that settle it. A
    mechanism that refuses a grid ε is added to ``skipped``.
    """
    by_name = {c.mechanism: c for c in curves}
    unsettled = []
    for mechanism in _cheapest_first(work.templates, work.cache):
        grid, missing = demo_epsilons(mechanism), _missing(work.templates[mechanism], work.cache)
        fetch, curve = work.fetch(mechanism), by_name.get(mechanism)
        while (epsilon := next_coarse(curve, target, grid)) is not None and work.budget.allows(
            missing(epsilon)
        ):
            point = fetch(epsilon)
            if point is None:  # the mechanism refuses this ε: it gives no answer
                skipped.append((mechanism, f"its run at ε = {epsilon:g} was refused"))
                by_name.pop(mechanism, None)
                break
            curve = by_name[mechanism] = _extended(curve, mechanism, target.metric, point)
        else:
            if left := trainings_left(curve, target, grid, missing):
                unsettled.append((mechanism, left))
    order = list(work.templates)  # the registry's, as a read lists them (ties keep it)
    return sorted(by_name.values(), key=lambda c: order.index(c.mechanism)), tuple(unsettled)


def _cheapest_first(templates: dict[str, list[RunConfig]], cache: ResultCache) -> list[str]:
    """The mechanisms of ``templates``: those training no model first, then by measured time.

    A time not measured here yet counts as the longest; ties keep the registry's order.
    """

    def cost(mechanism: str) -> tuple[bool, float]:
        seconds = estimate_seconds(cache, templates[mechanism])
        return MECHANISMS[mechanism].trains_model, math.inf if seconds is None else seconds

    return sorted(templates, key=cost)


def _missing(template: Sequence[RunConfig], cache: ResultCache) -> Missing:
    """How many runs of ``template`` (one per seed) are not cached at an ε."""

    def missing(epsilon: float) -> int:
        try:
            return sum(lookup(replace(c, epsilon=epsilon), cache) is None for c in template)
        except LabelDPError:  # refused at this ε: nothing to compute there
            return 0

    return missing


def _extended(curve: Curve | None, mechanism: str, metric: str, point: CurvePoint) -> Curve:
    """``curve`` with ``point``, or the curve of that one point."""
    if curve is not None:
        return curve.with_point(point)
    return Curve(mechanism, MECHANISMS[mechanism].privacy_unit, metric, (point,))


def _read_all(
    dataset: str,
    target: Target,
    names: Sequence[str],
    grid: tuple,
    cache: ResultCache,
    skipped: list,
) -> tuple[list[Curve], dict[str, list[RunConfig]], int]:
    """Each mechanism's cached curve, with every point an earlier bisection left in the cache.

    ``grid`` is (seeds, epochs, model) as :func:`~labeldp_core.experiments.demo.demo_configs` takes
    them.
    Returns the curves, each mechanism's runs at one ε (one per seed: the template of a new
    point) and how many runs of the grid are missing; a mechanism whose configs cannot be made
    on ``dataset`` is added to ``skipped`` with why.
    """
    curves, templates, missing = [], {}, 0
    for mechanism in names:
        try:
            configs = demo_configs(dataset, [mechanism], *grid, variants=False)
        except LabelDPError as exc:
            skipped.append((mechanism, str(exc)))
            continue
        curve, absent = _read_curve(mechanism, configs, cache, target.metric)
        missing += absent
        templates[mechanism] = [c for c in configs if c.epsilon == configs[0].epsilon]
        if curve is not None:
            reader = _fetcher(templates[mechanism], cache, None, silent)
            curves.append(read_tree(curve, reader))
    return curves, templates, missing


def _common_clean(
    curves: Sequence[Curve],
    dataset: str,
    grid: tuple[Sequence[int], int | None, str | None],
    cache: ResultCache,
) -> float:
    """The clean model's score: the pages' one clean baseline, else the curves' mean.

    On the demo seeds, :func:`~labeldp_core.choosing.clean_reference.clean_reference` (the number
    every page draws) once each seed's clean model is cached. Otherwise the mean over the curves of
    mechanisms that train the model (the DP prototypes' own reference is a non-private
    prototype classifier, not that model).
    """
    seeds, epochs, model = grid
    if tuple(seeds) == DEMO_SEEDS:
        reference = clean_reference(dataset, model, epochs, cache)
        if reference is not None:
            return reference
    trained = [c.baseline for c in curves if MECHANISMS[c.mechanism].trains_model]
    return float(np.mean(trained)) if trained else max(c.baseline for c in curves)


def _beyond_clean(dataset: str, target: Target, curves: Sequence[Curve], complete: bool) -> str:
    """Why no ε, however large, can reach ``target`` (beyond every clean model), or "".

    Judged once the curves hold the model trained on the true labels (or every mechanism's
    curve, when ``complete``): the DP prototypes' own references stay below that model.
    """
    trained = any(MECHANISMS[c.mechanism].trains_model for c in curves)
    if not curves or target.kind == "within" or not (trained or complete):
        return ""
    if target.kind == "accuracy" and target.value > max(c.baseline for c in curves):
        best = max(c.baseline for c in curves)
        return (
            f"a test accuracy of {target.value:g} is above what the model trained on the true "
            f"labels reaches on {dataset} ({score_text(best)}): no ε can reach it; ask for at "
            "most that"
        )
    if target.kind == "mse" and target.value < min(c.baseline for c in curves):
        best = min(c.baseline for c in curves)
        return (
            f"a test MSE of {target.value:g} is below what the model trained on the true labels "
            f"reaches on {dataset} ({best:.3g}): no ε can reach it; ask for at least that"
        )
    return ""
