"""A run result made up for a test: the fields every test leaves alone, and the ones it sets."""

from typing import Any

from labeldp_core.cache import ResultCache
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import silent
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments import make_config

#: A small classification run of RR on digits at ε = 1: what a test does not care about.
DEFAULTS: dict[str, Any] = {
    "mechanism": "rr",
    "dataset": "digits",
    "seed": 0,
    "epsilon": 1.0,
    "epsilon_spent": 1.0,
    "delta": 0.0,
    "privacy_unit": "label",
    "n_train": 10,
    "n_test": 5,
    "num_classes": 10,
    "elapsed_s": 0.0,
    "cached": True,
    "epochs": 1,
    "settings": {},
    "details": {},
}


def fake_result(**fields: Any) -> RunResult:
    """A :class:`RunResult` with ``fields`` over :data:`DEFAULTS` (scores unset unless given)."""
    return RunResult(**(DEFAULTS | fields))


def store_clean_models(
    cache: ResultCache, scores: dict[int, float], epochs: int | None = None, model: str = "cnn"
) -> None:
    """Cache the clean model of digits' default recipe with test accuracy ``scores[seed]``.

    What :func:`labeldp_core.choosing.clean_reference.clean_reference` reads: the page's one clean
    line.
    """
    for seed, score in scores.items():
        config = make_config("rr", "digits", 1.0, seed, epochs, {"model": model})
        key = RunContext(config, "classification", cache, silent)._baseline_key()
        cache.put_json(key, {"score": score, "curve": [score]})
