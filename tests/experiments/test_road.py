"""The road from a caller to its stored results: one look, one plan, one computation."""

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.engine.config import RunConfig
from labeldp_core.engine.timing import record_seconds
from labeldp_core.experiments import make_config, road, run
from labeldp_core.experiments.road import Road

FAST = {"model": "logistic"}


def test_a_stored_point_is_read_once_and_handed_out_as_the_same_object(cache: ResultCache):
    config = make_config("rr", "digits", 2.0, epochs=1, settings=FAST)
    run(config, cache)
    results = Road(cache)
    first = results.plan(config).result
    assert first is not None and first.cached and first.epsilon_spent == 2.0
    assert results.plan(config).result is first
    assert results.stored(make_config("rr", "digits", 2.0, epochs=1, settings=FAST)) is first


def test_a_missing_point_is_planned_with_its_estimate_and_then_computed_once(
    cache: ResultCache, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(road, "on_demo_grid", lambda config: True)
    config = make_config("rr", "digits", 2.0, epochs=1, settings=FAST)
    results = Road(cache)
    never_timed = results.plan(config)
    assert never_timed.result is None and never_timed.seconds is None
    assert never_timed.at_once  # a first run on a small dataset is its own measurement
    record_seconds(cache, config, road.QUICK_S + 1)
    slow = results.plan(config)
    assert slow.seconds == road.QUICK_S + 1 and not slow.at_once
    computed = results.computed(slow)
    assert not computed.cached and computed.epsilon_spent == 2.0
    assert results.plan(config).result.flip_rate == computed.flip_rate


def test_a_point_waiting_for_its_click_comes_with_its_computed_neighbours(cache: ResultCache):
    below, above = (make_config("rr", "digits", e, epochs=1, settings=FAST) for e in (1.0, 4.0))
    known = {config.epsilon: run(config, cache).test_accuracy for config in (below, above)}
    waiting = Road(cache).plan(make_config("rr", "digits", 2.0, epochs=1, settings=FAST))
    assert waiting.result is None and not waiting.at_once  # not on the demo grid: 1 epoch
    assert {e: waiting.neighbours[e] for e in known} == known


def test_a_config_is_marked_made_by_make_config_alone():
    config = make_config("rr", "digits", 2.0)
    assert config.made
    assert not RunConfig("rr", "digits", 2.0).made
    assert [name for name in dir(RunConfig) if "made" in name] == ["made"]


def test_a_caller_that_computes_nothing_is_told_only_whether_a_point_is_stored(
    cache: ResultCache,
):
    run(make_config("rr", "digits", 1.0, epochs=1, settings=FAST), cache)
    config = make_config("rr", "digits", 2.0, epochs=1, settings=FAST)
    record_seconds(cache, config, 1.0)
    read_only = Road(cache).plan(config, computes=False)
    assert read_only == road.Plan(config, None)  # no estimate, no neighbours looked up
    assert Road(cache).plan(config).seconds is not None


def test_only_the_plan_of_a_missing_point_is_computed(cache: ResultCache):
    config = make_config("rr", "digits", 2.0, epochs=1, settings=FAST)
    run(config, cache)
    found = Road(cache).plan(config)
    assert found.result is not None and found.where is None
    with pytest.raises(ValueError, match="not the plan of a missing point"):
        Road(cache).computed(found)
