"""A warm's time left, replayed on a recorded warm's timings (``bench/warm_time_left.py``):
within 10% from a fifth of the way."""

import json
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.services import warm_estimate
from labeldp_core.services.warm import WarmTask
from labeldp_core.services.warm_estimate import Estimate
from tests.docs.pages import ROOT, script_module

measured = script_module("measured", ROOT / "bench" / "measured.py")
replays = script_module("warm_time_left", ROOT / "bench" / "warm_time_left.py")
_task = replays.task_of
#: A real warm's points, each with its seconds, in the order they were done (its "source").
TIMELINE = json.loads(Path(__file__).with_name("warm_timeline_digits.json").read_text("utf-8"))


@pytest.fixture
def points() -> list[tuple[WarmTask, float]]:
    return [(_task(label), seconds) for label, seconds in TIMELINE["points"]]


def _errors(estimate: Estimate, points, monkeypatch) -> list[tuple[float, float]]:
    """(share of the run done, estimate / truth - 1) at each end of a point from 20% to 90%."""
    clock = [0.0]
    monkeypatch.setattr(warm_estimate.time, "monotonic", lambda: clock[0])
    said = replays.replay(estimate, points, TIMELINE["workers"], clock)
    return [
        (round(at, 3), round(left / real - 1, 3)) for at, left, real in said if 0.2 <= at <= 0.9
    ]


@pytest.mark.parametrize("slower", [1.0, 2.5], ids=["as recorded", "on a machine 2.5x slower"])
def test_the_time_left_of_a_recorded_warm_is_within_ten_percent(
    isolated_cache: Path, points, monkeypatch: pytest.MonkeyPatch, slower: float
):
    """The bench's rates are the recording's own; the warm learns the machine's speed."""
    reference = measured.family_rates(TIMELINE["points"])
    slowed = [(task, seconds * slower) for task, seconds in points]
    off = _errors(Estimate(ResultCache(isolated_cache), reference), slowed, monkeypatch)
    assert len(off) > 200
    assert all(abs(error) <= 0.10 for _, error in off), [o for o in off if abs(o[1]) > 0.10]


def test_a_kind_not_seen_yet_takes_its_familys_bench_seconds_at_this_machines_speed(
    isolated_cache: Path,
):
    estimate = Estimate(ResultCache(isolated_cache), {"rr": 2.0, "model audit": 5.0})
    rr, audit = _task("rr ε=1 seed=0"), _task("model audit rr ε=1")
    assert estimate.of(audit) is None, "nothing measured yet: no guess"
    estimate.add(rr, 6.0)  # three times the bench's seconds
    assert estimate.of(audit) == pytest.approx(15.0)
    estimate.add(_task("model audit rr ε=2"), 12.0)
    weight = warm_estimate.PRIOR_WEIGHT
    assert estimate.of(audit) == pytest.approx((12.0 + weight * 15.0) / (1 + weight))
    for _ in range(100):
        estimate.add(audit, 12.0)
    assert estimate.of(audit) == pytest.approx(12.0, rel=0.05), "seen often: its own seconds"


def test_audit_cases_tell_the_machines_speed_against_their_own_mechanisms_bench_seconds(
    isolated_cache: Path,
):
    # The audit page's first cases are LabelDP-Pro's and DP-SGD's, costlier than the median case
    # of all mechanisms: measured against that one median, they said the machine ran three times
    # slower than it did, and a warm at a tenth of the way said about 19 minutes were left of 7.
    reference = {"rr": 1.0, "audit case": 0.3, "audit case labeldp-pro": 9.0, "model audit": 3.0}
    estimate = Estimate(ResultCache(isolated_cache), reference)
    for seed in range(warm_estimate.RECENT):
        estimate.add(_task(f"rr ε=1 seed={seed}"), 1.0)
        estimate.add(_task(f"audit labeldp-pro case {seed + 1}"), 9.0)
    assert estimate.of(_task("model audit rr ε=1")) == pytest.approx(3.0), "the bench's speed"
    assert estimate.of(_task("audit pate case 1")) == pytest.approx(0.3), "any case's, unseen"


def test_a_familys_first_point_does_not_set_the_machines_speed_once_another_is_seen(
    isolated_cache: Path,
):
    # A family's first point pays its worker's imports and what its other points read; in a
    # warm's first minute, when most families had their first point alone, those said the
    # machine ran twice as slow as it did and the time left doubled.
    estimate = Estimate(ResultCache(isolated_cache), {"rr": 1.0, "pate": 1.0, "model audit": 3.0})
    audit = _task("model audit rr ε=1")
    estimate.add(_task("rr ε=1 seed=0"), 4.0)
    assert estimate.of(audit) == pytest.approx(12.0), "a first point alone: all there is"
    estimate.add(_task("pate ε=1 seed=0"), 8.0)
    estimate.add(_task("rr ε=1 seed=1"), 1.0)
    estimate.add(_task("pate ε=1 seed=1"), 1.0)
    assert estimate.of(audit) == pytest.approx(3.0), "the later points: the bench's speed"


def test_the_points_left_are_dealt_to_the_worker_free_first(isolated_cache: Path, monkeypatch):
    monkeypatch.setattr(warm_estimate.time, "monotonic", lambda: 100.0)
    estimate = Estimate(ResultCache(isolated_cache))
    fast, slow = _task("rr ε=1 seed=0"), _task("model audit rr ε=1")
    estimate.add(fast, 1.0)
    estimate.add(slow, 10.0)
    # one worker is 4 s into a 10 s audit; the other takes the three 1 s points, then the audit
    running = {"future": (slow, 96.0)}
    assert estimate.left([fast, fast, fast, slow], running, workers=2) == 3.0 + 10.0
    assert estimate.left([fast, fast, fast, slow], running, 2, phase="pages") == 3.0
    # split evenly, the same seconds would say (6 + 3 + 10) / 2: the last audit's wait is lost
    assert estimate.left([], {}, workers=2) == 0.0
