"""Run one config or a sweep, answering from the cache and storing each point as it finishes."""

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from numbers import Integral

from labeldp_core.base.threads import torch_threads, training_threads
from labeldp_core.base.validation import check_epsilon, check_list, check_seed
from labeldp_core.cache import CacheKey, ResultCache
from labeldp_core.data import DatasetInfo, dataset_info, load_dataset
from labeldp_core.data.results_store import results_store
from labeldp_core.engine.consensus import consensus_details
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.diagnostics import diagnostics_entry
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.engine.result_schema import ResultSchemaError
from labeldp_core.engine.spec import (
    COMMON_SETTINGS,
    MechanismSpec,
    Registered,
    RunConfig,
    RunResult,
    Scalar,
)
from labeldp_core.engine.timing import record_seconds
from labeldp_core.errors import InvalidInputError
from labeldp_core.registry import mechanism_spec, registration, result_unit

__all__ = [
    "computed_result",
    "dataset_training_defaults",
    "fresh_result",
    "lookup",
    "make_config",
    "result_key",
    "run",
    "stored_result",
    "sweep",
    "sweep_configs",
]

#: Share of a cold run's progress bar given to the clean baseline when it is not cached yet.
_BASELINE_SHARE = 0.4
_MAX_EPOCHS = 1000


def make_config(
    mechanism: str,
    dataset: str,
    epsilon: float,
    seed: int = 0,
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
) -> RunConfig:
    """Validate a run's parameters and fill every default, so equal runs get equal configs."""
    spec = mechanism_spec(mechanism)
    info = dataset_info(dataset)
    epsilon = check_epsilon(epsilon)
    seed = check_seed(seed)
    recipe = dict(spec.recipe(dataset)) if spec.recipe is not None else {}
    recipe_epochs = recipe.pop("epochs", None)
    if epochs is None:
        epochs = recipe_epochs or info.default_epochs
    if (
        isinstance(epochs, bool)
        or not isinstance(epochs, Integral)
        or not 1 <= epochs <= _MAX_EPOCHS
    ):
        raise InvalidInputError(
            f"epochs must be a whole number in 1..{_MAX_EPOCHS}, got {epochs!r}"
        )
    known = spec.all_settings()
    if settings is not None and not isinstance(settings, Mapping):
        raise InvalidInputError(
            f"settings must be a mapping of names to values, e.g. {{'model': 'mlp'}}, "
            f"got {settings!r}"
        )
    given = dict(settings or {})
    unknown = sorted(set(given) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise InvalidInputError(
            f"unknown setting(s) {', '.join(unknown)} for mechanism '{mechanism}'; "
            f"allowed: {allowed}"
        )
    defaults = {name: setting.default for name, setting in known.items()}
    defaults |= dataset_training_defaults(spec, info) | recipe
    resolved = {
        name: setting.parse(name, given[name]) if name in given else defaults[name]
        for name, setting in sorted(known.items())
    }
    if info.table:
        resolved = _table_model(resolved, given)
    config = RunConfig(
        mechanism=mechanism,
        dataset=dataset,
        epsilon=epsilon,
        seed=int(seed),
        epochs=int(epochs),
        settings=tuple(resolved.items()),
    )
    if spec.check is not None:
        spec.check(config)
    object.__setattr__(config, "made", True)  # the mark of RunConfig.made: set here alone
    return config


def _table_model(resolved: dict[str, Scalar], given: dict[str, object]) -> dict[str, Scalar]:
    """A table has features, not images: its model defaults to the MLP and the CNN is refused."""
    if resolved.get("model") != "cnn":
        return resolved
    if "model" in given:
        raise InvalidInputError(
            "setting model=cnn needs images and a table has features: use model=mlp (the "
            "default for tables) or model=logistic"
        )
    return resolved | {"model": "mlp"}


def dataset_training_defaults(spec: MechanismSpec, info: DatasetInfo) -> dict[str, Scalar]:
    """The dataset's own defaults of the common training settings, if ``spec`` trains with them.

    They apply together or not at all: a mechanism with its own batch size (PATE's teachers
    train on small shards) keeps its own learning rate too.
    """
    own = spec.all_settings()
    overrides = dict(info.training_defaults)
    if all(own.get(name) is COMMON_SETTINGS.get(name) for name in overrides):
        return overrides
    return {}


def _is_made(config: object) -> bool:
    """Whether :func:`make_config` returned ``config``, or a copy of it (pickling keeps the mark).

    :func:`lookup` and :func:`run` check any other config, and fill its defaults.
    """
    return isinstance(config, RunConfig) and config.made


def _normalise(config: RunConfig) -> RunConfig:
    """``config`` as :func:`make_config` returned it: checked once, not again on every use."""
    if _is_made(config):
        return config
    if not isinstance(config, RunConfig):
        raise InvalidInputError(
            f"expected a RunConfig (build one with make_config), got {type(config).__name__}"
        )
    return make_config(
        config.mechanism,
        config.dataset,
        config.epsilon,
        config.seed,
        config.epochs,
        dict(config.settings),
    )


def lookup(config: RunConfig, cache: ResultCache | None = None) -> RunResult | None:
    """The cached result of ``config``, or None; never computes."""
    config = _normalise(config)
    return _stored(_store(cache, config), config, registration(config.mechanism))


def stored_result(
    config: RunConfig, store: ResultCache, registered: Registered
) -> RunResult | None:
    """:func:`lookup` of a config that :func:`make_config` returned, which is not checked again.

    The app's road from a page to its result takes this and :func:`fresh_result`: its configs
    are made, and ε checked, once, where a page reads its controls; ``store`` is the store that
    keeps the config's dataset (:func:`~labeldp_core.data.results_store.results_store`) and
    ``registered`` what the registry says of its mechanism
    (:func:`~labeldp_core.registry.registration`), both found once by the caller for the
    point's look and its computation.

    Raises:
        InvalidInputError: if ``config`` was not made by :func:`make_config`, or ``registered``
            is another mechanism's.
    """
    config = _made(config, registered)
    return _stored(store, config, registered)


def _store(cache: ResultCache | None, config: RunConfig) -> ResultCache:
    """The store that keeps ``config``'s dataset, in ``cache`` (default: the default cache)."""
    return results_store(ResultCache() if cache is None else cache, config.dataset)


def _made(config: RunConfig, registered: Registered | None = None) -> RunConfig:
    """``config``, if :func:`make_config` returned it (or a copy of it); any other is refused.

    The road takes a made config as it is, never checking it again: a cached page function
    hands back pickled copies, which keep the mark (:attr:`RunConfig.made`). What the registry
    says of another mechanism than ``config``'s (``registered``) is refused too: its code unit
    would key the result under another family.
    """
    if not _is_made(config):
        raise InvalidInputError(
            f"not a config make_config returned: {config!r}; build it with make_config"
        )
    if registered is not None and registered.spec.id != config.mechanism:
        raise InvalidInputError(
            f"the registration of {registered.spec.id!r} is not {config.mechanism!r}'s: "
            "ask registration(config.mechanism)"
        )
    return config


def result_key(store: ResultCache, config: RunConfig) -> CacheKey:
    """The key of ``config``'s result in ``store``, under its family's code (the registry's).

    The one name of a run result's key: the cache cannot name a mechanism's family itself (the
    registry sits above it), so whoever reads or writes a result by key asks here.
    """
    return _key(store, config, result_unit(config.mechanism))


def _key(store: ResultCache, config: RunConfig, unit: str) -> CacheKey:
    """:func:`result_key` of ``config``, whose family's code ``unit`` the caller has found."""
    return store.key_under("result", config.to_dict(), unit)


def _stored(store: ResultCache, config: RunConfig, registered: Registered) -> RunResult | None:
    """The result stored for ``config`` (``cached=True``), or None if absent or not its result.

    An entry that does not rebuild into a :class:`RunResult` (a field missing or of the wrong
    type, epsilon_spent above epsilon) or that is the result of another config (a cache file
    from elsewhere may hold anything under any key) is dropped, so it counts as a miss and the
    next run recomputes and replaces it. A result is shown with today's threat card and tuning
    note (:meth:`~labeldp_core.engine.spec.Registered.disclosed`), if it was stored before they
    changed. ``registered`` is what the registry says of the point (its key's code unit, its
    card).
    """
    key = _key(store, config, registered.unit)
    found = store.get_json(key)
    if found is None:
        return None
    try:
        result = RunResult.from_dict(found, cached=True)
    except ResultSchemaError:
        result = None
    if result is None or not result.is_result_of(config):
        store.discard(key)
        return None
    return registered.disclosed(result, config)


def run(
    config: RunConfig, cache: ResultCache | None = None, progress: Progress = silent
) -> RunResult:
    """Compute one point, or return it from the cache (``cached=True``) without training."""
    config = _normalise(config)
    return computed_result(config, _store(cache, config), progress)


def computed_result(
    config: RunConfig, store: ResultCache, progress: Progress = silent
) -> RunResult:
    """:func:`run` of a config that :func:`make_config` returned, which is not checked again.

    ``store`` keeps the config's dataset, as for :func:`stored_result`. What the registry says
    of the point (its key's code unit, its spec, its card) is asked once, first.

    Raises:
        InvalidInputError: if ``config`` was not made by :func:`make_config`.
    """
    started = time.perf_counter()
    config = _made(config)
    registered = registration(config.mechanism)
    found = _stored(store, config, registered)
    if found is not None:
        return replace(found, elapsed_s=round(time.perf_counter() - started, 4))
    return _fresh(config, store, registered, progress, started)


def fresh_result(
    config: RunConfig, store: ResultCache, registered: Registered, progress: Progress = silent
) -> RunResult:
    """:func:`computed_result` of a point its caller has just found missing: no second look.

    The app's road looks a point up once (:func:`stored_result`, in the same run of the page)
    and computes the one it did not find with this, with the ``store`` and ``registered`` of
    its look.

    Raises:
        InvalidInputError: if ``config`` was not made by :func:`make_config`, or ``registered``
            is another mechanism's.
    """
    started = time.perf_counter()
    config = _made(config, registered)
    return _fresh(config, store, registered, progress, started)


def _fresh(
    config: RunConfig,
    store: ResultCache,
    registered: Registered,
    progress: Progress,
    started: float,
) -> RunResult:
    """Compute ``config``'s result, store it with the seconds it took, and return it."""
    key = _key(store, config, registered.unit)
    with training_threads():
        result = _computed(config, registered, store, progress, started)
    store.put_json(key, result.to_dict())
    record_seconds(store, config, result.elapsed_s)
    progress(1.0, "done")
    return result


def _computed(
    config: RunConfig,
    registered: Registered,
    cache: ResultCache,
    progress: Progress,
    started: float,
) -> RunResult:
    """Compute ``config``'s result (its clean baseline first, if it trains a model)."""
    spec = registered.spec
    data = load_dataset(config.dataset)
    clean, share = _clean_baseline(config, spec, cache, progress)
    ctx = RunContext(config, spec.task, cache, within(progress, share, 1))
    outcome = spec.runner(config, ctx)
    baseline = outcome.baseline_score
    if baseline is None and clean:
        baseline = float(clean["score"])
    details = dict(outcome.details)
    if "attack" in ctx.notes:
        # How often the released model predicts the true label of a private training example
        # (train_accuracy) and of an unseen test example; the clean model's for comparison.
        details["attack"] = ctx.notes["attack"] | {
            "clean_model_train_accuracy": clean.get("train_accuracy")
        }
    details, consensus_diagnostics = consensus_details(ctx.notes, details)
    regression = spec.task == "regression"
    declared = [*outcome.diagnostics, *consensus_diagnostics]
    result = RunResult(
        mechanism=config.mechanism,
        dataset=config.dataset,
        seed=config.seed,
        epsilon=config.epsilon,
        epsilon_spent=outcome.epsilon_spent,
        delta=outcome.delta,
        privacy_unit=spec.privacy_unit,
        n_train=outcome.n_train,
        n_test=data.n_test,
        num_classes=data.num_classes,
        elapsed_s=round(time.perf_counter() - started, 4),
        cached=False,
        epochs=int(config.epochs or 0),
        settings=dict(config.settings),
        details=details | {"torch_threads": torch_threads()},
        flip_rate=outcome.flip_rate,
        label_accuracy=outcome.label_accuracy,
        test_accuracy=None if regression else outcome.test_score,
        test_mse=outcome.test_score if regression else None,
        baseline_test_accuracy=None if regression else baseline,
        baseline_test_mse=baseline if regression else None,
    )
    return registered.disclosed(
        replace(result, diagnostics=diagnostics_entry(result.to_dict(), declared)), config
    )


def _clean_baseline(
    config: RunConfig, spec: MechanismSpec, cache: ResultCache, progress: Progress
) -> tuple[dict, float]:
    """The clean baseline's record ({} if ``spec`` trains no model), and its progress share."""
    if not spec.trains_model:
        return {}, 0.0
    ctx = RunContext(config, spec.task, cache, silent)
    share = 0.0 if ctx.baseline_is_cached() else _BASELINE_SHARE
    return replace(ctx, progress=within(progress, 0.0, share)).baseline(), share


def sweep(
    mechanism: str,
    dataset: str,
    epsilons: Sequence[float],
    seeds: Iterable[int] = (0,),
    *,
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
    cache: ResultCache | None = None,
    progress: Progress = silent,
) -> list[RunResult]:
    """Run every (epsilon, seed) point; each is cached as it finishes, so a rerun resumes.

    The points of a small model (logistic, MLP) train together as one batched model, each
    exactly as alone, a few at a time, and are cached as each batch is done (:mod:`.together`).
    """
    configs = sweep_configs(mechanism, dataset, epsilons, seeds, epochs, settings)
    cache = ResultCache() if cache is None else cache
    from labeldp_core.experiments import together  # it imports this module

    if together.can_train_together(configs):
        return together.run_together(configs, cache, progress)
    results = []
    for index, config in enumerate(configs):
        label = f"epsilon={config.epsilon:g} seed={config.seed} ({index + 1}/{len(configs)})"
        point = within(progress, index / len(configs), (index + 1) / len(configs))
        results.append(run(config, cache, lambda f, m, p=point, s=label: p(f, f"{s}: {m}")))
    return results


def sweep_configs(
    mechanism: str,
    dataset: str,
    epsilons: Sequence[float],
    seeds: Iterable[int] = (0,),
    epochs: int | None = None,
    settings: Mapping[str, object] | None = None,
) -> list[RunConfig]:
    """The configs of a sweep's points, every one checked, epsilon-major as :func:`sweep` runs."""
    epsilons = check_list(epsilons, "a sweep's epsilons", "[0.5, 1, 2]")
    seeds = check_list(seeds, "a sweep's seeds", "[0, 1, 2]")
    return [
        make_config(mechanism, dataset, epsilon, seed, epochs, settings)
        for epsilon in epsilons
        for seed in seeds
    ]
