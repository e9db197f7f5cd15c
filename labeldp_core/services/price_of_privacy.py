"""What the price-of-privacy screen draws, read from the result cache only: nothing is computed.

One screen shows, for every ε the cache holds a point at, every chosen mechanism's test accuracy
(its seeds), the lower bound the privacy audit proved for its release, and, where the trained
model was audited with canaries, the model's ε̂ (:mod:`labeldp_core.model_audit`). Every number
is a stored one: a point, an audit case or a canary training missing from the cache is left out,
never computed, so the screen is safe on a read-only classroom server and costs no training.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from labeldp_core.accounting.risk import Prior
from labeldp_core.cache import ResultCache
from labeldp_core.choosing.clean_reference import clean_line, image_prior
from labeldp_core.data import dataset_info
from labeldp_core.engine.spec import RunConfig, RunResult
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import lookup, make_config
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, demo_epsilons, point_epsilons
from labeldp_core.model_audit import cached_audit, can_audit
from labeldp_core.model_audit.recipe import training_words
from labeldp_core.plots_base.common import LABEL_DP_RANGE
from labeldp_core.services.release_audits import APP_TRIALS, CASES, audit_cases, stored_audit_case

__all__ = [
    "AuditedBound",
    "PriceOfPrivacy",
    "cached_runs",
    "read_price_of_privacy",
    "screen_configs",
]

#: Where a lower bound on ε comes from: the audit of the release, or the trained model's canaries.
RELEASE, MODEL = "release", "trained model"


@dataclass(frozen=True)
class AuditedBound:
    """A lower bound on the ε a mechanism really spends, proven at 95% confidence and cached.

    ``epsilon`` is the budget the mechanism ran at; ``claim`` the ε (with ``delta``) the bound
    is held against: the audit case's own claim, or, for the trained model, the claim for one
    label (an example-level ε read as 2ε by group privacy).
    """

    mechanism: str
    epsilon: float
    lower_bound: float
    claim: float
    delta: float
    source: str
    case: str


@dataclass(frozen=True)
class PriceOfPrivacy:
    """Everything cached for the screen on one dataset: runs by mechanism id, audited bounds.

    ``prior`` is what a model of the public image tells an attacker about one label (the clean
    model's accuracy), when known: the guess is bounded from it as well as from 1/K.
    """

    dataset: str
    num_classes: int
    results: Mapping[str, tuple[RunResult, ...]]
    audits: tuple[AuditedBound, ...]
    prior: Prior | None = None

    @property
    def empty(self) -> bool:
        """Whether no accuracy and no audit is cached for the chosen mechanisms."""
        return not self.audits and not any(self.results.values())


def screen_configs(
    dataset: str, mechanism: str, seeds: Sequence[int], epochs: int | None, model: str | None
) -> list[RunConfig]:
    """``mechanism``'s points at every ε `warm` computes it at, for every seed of ``seeds``.

    The curve's grid (as the Compare page reads it) and the class's extra stops, so that the
    animation has a frame wherever any seed of the mechanism was computed.
    """
    grid = demo_configs(dataset, [mechanism], seeds, epochs, model, variants=False)
    extra = sorted(set(point_epsilons(mechanism, dataset)) - {c.epsilon for c in grid})
    firsts = {c.seed: c for c in grid}
    return grid + [replace(c, epsilon=e) for c in firsts.values() for e in extra]


def cached_runs(
    dataset: str,
    mechanism: str,
    cache: ResultCache,
    seeds: Sequence[int] = DEMO_SEEDS,
    epochs: int | None = None,
    model: str | None = None,
) -> tuple[RunResult, ...]:
    """The cached results of ``mechanism`` on ``dataset`` at the ε of the screen; never computes."""
    found = (lookup(c, cache) for c in screen_configs(dataset, mechanism, seeds, epochs, model))
    low, high = LABEL_DP_RANGE
    return tuple(r for r in found if r is not None and low <= r.epsilon <= high)


def _release_bound(
    mechanism: str, epsilon: float, seed: int, cache: ResultCache
) -> AuditedBound | None:
    """The highest bound of ``mechanism``'s own audit cases (not its controls) cached at ε."""
    try:
        count = len(audit_cases(mechanism, epsilon))
    except LabelDPError:
        return None
    found = [
        stored_audit_case(mechanism, epsilon, i, APP_TRIALS, seed, cache, compute=False)
        for i in range(count)
    ]
    real = [r for r in found if r is not None and not r.is_control]
    if not real:
        return None
    best = max(real, key=lambda r: r.epsilon_lower_bound)
    return AuditedBound(
        mechanism,
        epsilon,
        best.epsilon_lower_bound,
        best.claimed_epsilon,
        best.claimed_delta,
        RELEASE,
        best.name,
    )


def _model_bound(run: RunResult, seed: int, cache: ResultCache) -> AuditedBound | None:
    """The trained model's ε̂ at ``run``'s point (its epochs and settings), if cached, else None.

    The audit page audits the model of the sidebar's choices at its seed, and the default run's
    with the audit's own recipe (a model that memorises its canaries, as `warm` computes it);
    its canary trainings are looked up under the same keys, never trained (:func:`cached_audit`).
    """
    if not can_audit(run.mechanism, run.epsilon):  # no classifier whose scores canaries read
        return None
    options = {"epochs": run.epochs, "settings": dict(run.settings)}
    default = make_config(run.mechanism, run.dataset, run.epsilon, run.seed)
    if (default.epochs, dict(default.settings)) == (run.epochs, dict(run.settings)):
        options = {}  # the default run: the audit `warm` computes, with the audit's own recipe
    try:
        audit = cached_audit(
            run.mechanism, run.dataset, run.epsilon, seed=seed, **options, cache=cache
        )
    except LabelDPError:
        return None
    if audit is None:
        return None
    return AuditedBound(
        run.mechanism,
        run.epsilon,
        audit.audited.epsilon_lower_bound,
        audit.label_epsilon,
        audit.label_delta,
        MODEL,
        f"{audit.canaries} canaries, {training_words(audit)}"
        + ("" if audit.learning_rate is None else f", learning rate {audit.learning_rate:g}")
        + ("" if audit.claim_reason is None else ", held to the ε its training labels spend"),
    )


def _audited(
    results: Mapping[str, tuple[RunResult, ...]], seed: int, cache: ResultCache
) -> tuple[AuditedBound, ...]:
    """Every cached bound at an ε some chosen mechanism was run at: release, then model.

    The trained model's only at the ε of the mechanism's curve (:func:`demo_epsilons`), not at
    the class's extra stops: each look-up first draws the canaries (about 8 ms on digits), and
    the 7 grid values of 7 mechanisms cost well under a second where 26 values cost two.
    """
    bounds = []
    for mechanism, runs in results.items():
        epsilons = sorted({r.epsilon for r in runs})
        if mechanism in CASES:
            bounds += [_release_bound(mechanism, e, seed, cache) for e in epsilons]
        firsts = {r.epsilon: r for r in runs}
        grid = [e for e in epsilons if e in demo_epsilons(mechanism)]
        bounds += [_model_bound(firsts[e], seed, cache) for e in grid]
    return tuple(b for b in bounds if b is not None)


def read_price_of_privacy(
    dataset: str,
    mechanisms: Sequence[str],
    *,
    seed: int = 0,
    epochs: int | None = None,
    model: str | None = None,
    cache: ResultCache | None = None,
) -> PriceOfPrivacy:
    """What the cache holds for the screen: runs, audits, the image's prior; nothing computed.

    Runs over :data:`DEMO_SEEDS`, audits at ``seed``, and the image's prior from the one clean
    line (:func:`~labeldp_core.choosing.clean_reference.clean_line`).

    Runs are read at every ε `warm` computes (:func:`cached_runs`); the release audits at the
    audit page's draws (``APP_TRIALS``) at each ε a run is cached at, and the canary audits of
    each cached run's model at the ε of its curve's grid. Nothing missing is computed.
    """
    cache = ResultCache() if cache is None else cache
    results = {m: cached_runs(dataset, m, cache, DEMO_SEEDS, epochs, model) for m in mechanisms}
    classes = next((r.num_classes for rows in results.values() for r in rows), None)
    runs = [r for rows in results.values() for r in rows]
    return PriceOfPrivacy(
        dataset=dataset,
        num_classes=classes or dataset_info(dataset).num_classes,
        results=results,
        audits=_audited(results, seed, cache),
        prior=image_prior(clean_line(dataset, model, epochs, cache, runs)),
    )
