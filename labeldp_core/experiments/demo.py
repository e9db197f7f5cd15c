"""The default demo set: every mechanism on a standard epsilon grid with three seeds.

``python -m labeldp_core warm`` computes it ahead of a demo; the pages draw their curves from the
same grid, so a warmed cache answers every page at once.
"""

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from labeldp_core.engine.spec import RunConfig
from labeldp_core.experiments.runner import make_config
from labeldp_core.registry import DEMO_GRIDS, MECHANISMS

__all__ = [
    "CLASS_EPSILONS",
    "DEMO_EPSILONS",
    "DEMO_SEEDS",
    "demo_configs",
    "demo_epsilons",
    "log_interpolate",
    "on_demo_grid",
    "point_epsilons",
]

DEMO_EPSILONS: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
DEMO_SEEDS: tuple[int, ...] = (0, 1, 2)
#: Extra epsilons at which `warm` computes a page's own point (first seed, default settings) on
#: CLASS_DATASETS: 10 values from 0.1 to 10, so that a class can drag the slider freely (with the
#: curves' grid, 16 stops; 20 values made the warm a third longer for stops a hand hardly tells
#: apart, issue 52).
CLASS_EPSILONS: tuple[float, ...] = tuple(float(f"{e:.2g}") for e in np.geomspace(0.1, 10, 10))
CLASS_DATASETS: tuple[str, ...] = ("digits",)


def demo_epsilons(mechanism: str) -> tuple[float, ...]:
    """The epsilon grid a mechanism's curves are drawn on."""
    return DEMO_GRIDS[mechanism].epsilons or DEMO_EPSILONS


def point_epsilons(mechanism: str, dataset: str) -> tuple[float, ...]:
    """Every epsilon at which `warm` computes ``mechanism``'s point on ``dataset`` (seed 0).

    The curve's grid, plus :data:`CLASS_EPSILONS` on CLASS_DATASETS for the mechanisms drawn
    on the standard grid: the values the ε slider snaps to in demo mode.
    """
    grid = demo_epsilons(mechanism)
    if dataset in CLASS_DATASETS and DEMO_GRIDS[mechanism].epsilons is None:
        grid = tuple(sorted({*grid, *CLASS_EPSILONS}))
    return grid


def demo_configs(
    dataset: str,
    mechanisms: Iterable[str] | None = None,
    seeds: Iterable[int] = DEMO_SEEDS,
    epochs: int | None = None,
    model: str | None = None,
    variants: bool = True,
    class_stops: bool = True,
) -> list[RunConfig]:
    """Every demo point of ``dataset``: mechanism x settings variant x epsilon grid x seeds.

    On CLASS_DATASETS, each mechanism's default point also at :data:`CLASS_EPSILONS`
    (first seed only).

    The variants are the defaults plus the settings the pages put side by side (Laplace's
    post-processings, an imbalanced DPPL set), and, for the first seed only, DP-SGD on the DPPL
    page's grid and imbalance. ``model`` replaces the default model of the mechanisms that accept
    it; ``variants=False`` keeps the default settings on the curves' grid only, and
    ``class_stops=False`` leaves out the extra values of CLASS_EPSILONS.
    """
    chosen = list(MECHANISMS) if mechanisms is None else list(mechanisms)
    seeds = list(seeds)
    configs = []
    for mechanism in chosen:
        model_setting = MECHANISMS[mechanism].all_settings().get("model")
        accepts = model_setting is not None and model in model_setting.choices
        base = {"model": model} if accepts else {}
        configs += [
            make_config(mechanism, dataset, epsilon, seed, epochs, base | variant)
            for variant in ({}, *(DEMO_GRIDS[mechanism].variants if variants else ()))
            for epsilon in demo_epsilons(mechanism)
            for seed in seeds
        ]
        if variants and class_stops and seeds:
            extra = sorted(set(point_epsilons(mechanism, dataset)) - set(demo_epsilons(mechanism)))
            configs += [make_config(mechanism, dataset, e, seeds[0], epochs, base) for e in extra]
        if variants and DEMO_GRIDS[mechanism].guest and seeds:
            guest, epsilons = DEMO_GRIDS[mechanism].guest
            configs += [
                make_config(mechanism, dataset, epsilon, seeds[0], epochs, base | guest)
                for epsilon in epsilons
            ]
    return configs


def on_demo_grid(config: RunConfig) -> bool:
    """Whether ``config`` is one of the demo points `warm` computes (its model aside).

    The pages compute such a point without a click (a classroom's warmed cache answers it;
    a cold one costs a bounded, known amount); anything else waits for a button.
    """
    model = dict(config.settings).get("model")
    model = model if isinstance(model, str) else None
    return config in _grid(config.dataset, config.mechanism, model)


@lru_cache(maxsize=256)
def _grid(dataset: str, mechanism: str, model: str | None) -> frozenset[RunConfig]:
    return frozenset(demo_configs(dataset, [mechanism], model=model))


def log_interpolate(epsilon: float, known: dict[float, float]) -> tuple[float, float, float] | None:
    """A value at ``epsilon`` read off the straight line between its computed neighbours.

    ``known`` maps computed epsilons to a result (a test accuracy, say). The line is drawn on
    log ε, the scale of the slider and of every curve. Returns (estimate, lower neighbour, upper
    neighbour), or None when ``epsilon`` has no computed point on one side: no guess outside them.

    >>> log_interpolate(2.0, {1.0: 0.5, 4.0: 0.9})
    (0.7, 1.0, 4.0)
    """
    below = max((e for e in known if e < epsilon), default=None)
    above = min((e for e in known if e > epsilon), default=None)
    if below is None or above is None:
        return None
    share = (np.log(epsilon) - np.log(below)) / (np.log(above) - np.log(below))
    value = known[below] + float(share) * (known[above] - known[below])
    return round(value, 12), below, above
