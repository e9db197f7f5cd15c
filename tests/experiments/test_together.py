"""Points trained together give each point the bytes of its own run.

A grid of points (two epsilons, two seeds) of one family and model is computed twice into two
empty caches: one by one with :func:`run`, and all together with :func:`run_together`, whose
small models train as one batched model. Every point's JSON must be the same text apart from the
fields that say how long it took or whether it came from the cache, and the points must really
have trained together (a spy counts the batched trainings), or the test proves nothing.
"""

import json
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.engine.timing import estimate_seconds
from labeldp_core.experiments import make_config, run, sweep
from labeldp_core.experiments.together import can_train_together, run_together
from labeldp_core.training import batched
from tests.experiments.test_determinism import TIMING_FIELDS

#: Families that train a small model on released hard labels, each with a model to batch.
GRIDS = {
    "rr, logistic": ("rr", {"model": "logistic"}),
    "rr-prior, mlp (dropout)": ("rr-prior", {"model": "mlp"}),
    "laplace, mlp (dropout)": ("laplace", {"model": "mlp"}),
    "lp-2st, logistic (two stages)": ("lp-2st", {"model": "logistic"}),
}
EPSILONS = (0.5, 2.0)
SEEDS = (0, 1)


def _texts(results: list) -> list[str]:
    """Each result's JSON text without its timing fields."""
    found = [{k: v for k, v in r.to_dict().items() if k not in TIMING_FIELDS} for r in results]
    return [json.dumps(f, sort_keys=True) for f in found]


@pytest.mark.parametrize("grid", list(GRIDS))
def test_a_grid_trained_together_is_byte_identical_to_its_points_one_by_one(
    grid: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    mechanism, settings = GRIDS[grid]
    configs = [
        make_config(mechanism, "digits", epsilon, seed, epochs=3, settings=settings)
        for epsilon in EPSILONS
        for seed in SEEDS
    ]
    alone = _texts([run(config, ResultCache(tmp_path / "alone")) for config in configs])
    sizes: list[int] = []
    train_together = batched.train_together

    def counted(jobs: list) -> list:
        sizes.append(len(jobs))
        return train_together(jobs)

    monkeypatch.setattr(batched, "train_together", counted)
    together = run_together(configs, ResultCache(tmp_path / "together"))
    # The first point trains alone (it comes back as soon as one by one), the others together.
    assert max(sizes, default=0) == len(configs) - 1, f"trained together in groups of {sizes}"
    assert _texts(together) == alone


def test_points_already_stored_are_read_not_trained(tmp_path: Path):
    cache = ResultCache(tmp_path)
    config = make_config("rr", "digits", 1.0, 0, epochs=1, settings={"model": "logistic"})
    first = run(config, cache)
    (again,) = run_together([config], cache)
    assert again.cached
    assert _texts([again]) == _texts([first])


def test_a_sweep_of_a_small_model_trains_its_points_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    sizes: list[int] = []
    train_together = batched.train_together
    monkeypatch.setattr(
        batched, "train_together", lambda jobs: sizes.append(len(jobs)) or train_together(jobs)
    )
    settings = {"model": "logistic"}
    results = sweep(
        "rr", "digits", [1.0, 4.0], [0, 1], epochs=1, settings=settings, cache=ResultCache(tmp_path)
    )
    assert 3 in sizes  # the first point alone, then the other three together
    assert [(r.epsilon, r.seed, r.cached) for r in results] == [
        (1.0, 0, False),
        (1.0, 1, False),
        (4.0, 0, False),
        (4.0, 1, False),
    ]


def test_only_grids_of_the_batched_models_go_together():
    grid = [make_config("rr", "digits", e, 0, epochs=1, settings={"model": "mlp"}) for e in (1, 2)]
    cnn = [make_config("rr", "digits", e, 0, epochs=1) for e in (1, 2)]
    assert can_train_together(grid)
    assert not can_train_together(cnn)
    assert not can_train_together(grid[:1])


def test_a_points_seconds_in_a_batch_are_not_recorded_as_its_time_alone(tmp_path: Path):
    cache = ResultCache(tmp_path)
    settings = {"model": "logistic"}
    grid = [make_config("rr", "digits", e, 0, epochs=1, settings=settings) for e in (1, 2, 4)]
    first, *_ = run_together(grid, cache)  # the first alone, the other two together
    assert estimate_seconds(cache, grid[:1]) == pytest.approx(first.elapsed_s, abs=1e-3)
