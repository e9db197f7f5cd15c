"""`warm` sends runs of small-model points of one kind to a worker as one task, trained together."""

import time
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config
from labeldp_core.services import warm
from labeldp_core.services.warm import WarmTask, run_warm
from labeldp_core.services.warm_estimate import Estimate
from labeldp_core.services.warm_together import GROUP_LIMIT, grouped, members


def _task(epsilon: float, model: str = "logistic", first: bool = True, seed: int = 0) -> WarmTask:
    config = make_config("rr", "digits", epsilon, seed, 1, {"model": model})
    return WarmTask("rr", first, config=config)


def test_runs_of_one_small_models_kind_become_one_task_in_order():
    small = [_task(e) for e in (0.5, 1.0, 2.0)]
    cnn = [_task(e, model="cnn") for e in (0.5, 1.0)]
    later = [_task(e, first=False) for e in (4.0, 8.0)]
    tasks = grouped([*small, *cnn, *later])
    assert [len(members(t)) for t in tasks] == [3, 1, 1, 2], "CNN points go one by one"
    assert [p.config for t in tasks for p in members(t)] == [
        t.config for t in [*small, *cnn, *later]
    ]
    assert all(not p.together for t in tasks for p in members(t))


def test_a_group_holds_at_most_the_limit():
    tasks = grouped([_task(0.5, seed=seed) for seed in range(GROUP_LIMIT + 1)])
    assert [len(members(t)) for t in tasks] == [GROUP_LIMIT, 1]


def test_a_warm_trains_a_group_together_and_counts_and_stores_each_point(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    tasks = [_task(e) for e in (0.5, 1.0, 2.0)]
    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks)
    lines: list[str] = []
    status = run_warm("digits", isolated_cache, lambda s, line: lines.append(line), workers=1)
    assert status.state == "finished" and status.done == status.total == 3
    assert status.pages == {"rr": [3, 3]}
    assert len(lines) == 3 and all("for 3 points together" in line for line in lines)
    cache = ResultCache(isolated_cache)
    assert all(lookup(t.config, cache) is not None for t in tasks)


def test_the_time_left_weighs_a_group_by_its_points(isolated_cache: Path):
    estimate = Estimate(ResultCache(isolated_cache))
    estimate.add(_task(4.0), 2.0)  # a point of the kind: 2 s (its share of its group's time)
    (group,) = grouped([_task(e) for e in (0.5, 1.0, 2.0)])
    assert estimate.left([group], {}, workers=1) == pytest.approx(3 * 2.0)
    started = time.monotonic() - 1.0
    left = estimate.left([], {"future": (group, started)}, workers=1)
    assert left == pytest.approx(3 * 2.0 - 1.0, abs=0.1), "a running group: its points, less"
