"""`warm`: every demo point and audit case once, first views first, on a pool of workers."""

import itertools
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, demo_epsilons
from labeldp_core.families.audit_claims import RandomizedResponseCeiling
from labeldp_core.model_audit import cached_audit, demo_model_audits
from labeldp_core.registry import ON_COMPARE, mechanism_entries
from labeldp_core.services import warm
from labeldp_core.services.release_audits import app_audit_points
from labeldp_core.services.warm import (
    AUDIT_PAGE,
    MODEL_AUDITS,
    WarmTask,
    read_status,
    run_warm,
    warm_tasks,
)
from labeldp_core.services.warm_estimate import Estimate, reference_rates


def _cheap(epsilon: float, seed: int = 0, **settings) -> WarmTask:
    config = make_config("rr", "digits", epsilon, seed, 1, {"model": "logistic"} | settings)
    return WarmTask("rr", not settings, config=config)


def test_every_demo_point_and_audit_case_once_first_views_first():
    extra = [make_config("rr", "digits", 0.123, 0)]
    tasks = warm_tasks("digits", extra)
    runs = [t.config for t in tasks if t.config is not None]
    assert len(runs) == len(set(runs))
    assert set(runs) == {*demo_configs("digits"), *extra}
    assert sorted(t.audit for t in tasks if t.audit is not None) == sorted(app_audit_points())
    kinds = {t.kind for t in tasks if t.first_view}
    assert {t.kind for t in tasks[: len(kinds)]} == kinds, "one point of each kind goes first"
    firsts = [t.first_view for t in tasks]
    assert firsts == sorted(firsts, reverse=True), "a first view's point comes after another's"
    assert {t.config for t in tasks if t.first_view and t.config} == set(
        demo_configs("digits", seeds=(0,), class_stops=False)
    )
    assert all(t.page == AUDIT_PAGE for t in tasks if t.audit is not None)


def test_the_curves_other_seeds_come_after_every_first_view_and_slider_stop():
    """Issue 52: the first seed of every line, and the slider's stops, before any band."""
    tasks = [t for t in warm_tasks("digits") if t.config is not None]
    seeds = [t.config.seed for t in tasks]
    first_band = seeds.index(1)
    assert set(seeds[:first_band]) == {0} and set(seeds[first_band:]) == {1, 2}
    stops = set(demo_configs("digits", seeds=(0,))) - set(
        demo_configs("digits", seeds=(0,), class_stops=False)
    )
    assert stops and stops <= {t.config for t in tasks[:first_band] if not t.first_view}
    bands = {t.config for t in tasks[first_band:]}
    assert bands == {c for c in demo_configs("digits", class_stops=False) if c.seed != 0}


def audited_classifiers() -> set[str]:
    """The mechanisms whose trained models warm audits, from the families' declarations: those
    Compare shows by default whose runs train a classifier on their labels' or examples' ε and
    whose claim a canary design can test: no declared ceiling, or one that is randomized
    response, whose ε the audit tests instead (Laplace's argmax labels)."""
    return {
        m.id
        for m in mechanism_entries()
        if m.on_compare
        and m.spec.task == "classification"
        and m.spec.privacy_unit in ("label", "example")
        and (
            m.model_audit_ceiling is None
            or isinstance(m.model_audit_ceiling, RandomizedResponseCeiling)
        )
    }


def test_the_trained_models_canary_audits_come_last_for_the_price_of_privacy_screen():
    tasks = warm_tasks("digits")
    audits = [t for t in tasks if t.model_audit is not None]
    assert tasks[-len(audits) :] == audits and not any(t.first_view for t in audits)
    assert {t.page for t in audits} == {MODEL_AUDITS}
    points = {(m, e) for m, _, e in (t.model_audit for t in audits)}
    # Each default-Compare classifier, on its curve's grid; no regression (Laplace regression,
    # RR on bins). DPPL-Mean is read through its prototypes' similarities. Not PATE: no canary
    # design can test its claim, which the audit says without training (model_audit.ceiling).
    # Laplace at the ε its argmax labels' 2x control can show above: 1, 2 and 4 on digits.
    assert {m for m, _ in points} == audited_classifiers()
    audited = audited_classifiers()
    assert {"rr", "dpsgd", "dppl-mean", "laplace"} <= audited and "pate" not in audited
    assert {e for m, e in points if m == "rr"} == set(demo_epsilons("rr"))
    assert {e for m, e in points if m == "laplace"} == {1.0, 2.0, 4.0}


@pytest.mark.usefixtures("isolated_cache")
def test_a_warmed_model_audit_is_the_one_the_price_of_privacy_screen_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    cache = ResultCache(tmp_path / "cache")
    (run,) = [c for c in demo_configs("digits", ["rr"], [0], variants=False) if c.epsilon == 2.0]
    task = WarmTask(MODEL_AUDITS, False, model_audit=("rr", "digits", 2.0))
    assert not warm._is_stored(task, cache)
    monkeypatch.setattr(warm, "_WORKER_CACHE", warm._TimedCache(str(tmp_path / "cache")))
    warm._compute(task)  # as a warm's worker does
    assert warm._is_stored(task, cache)
    read = cached_audit(
        "rr", "digits", 2.0, seed=0, epochs=run.epochs, settings=dict(run.settings), cache=cache
    )  # how the screen asks for a run's audit (labeldp_core.services.price_of_privacy)
    assert read is not None and read.claimed_epsilon == 2.0


@pytest.mark.usefixtures("no_local_mnist")
def test_a_warm_computes_what_is_missing_and_says_so_in_its_status(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    broken = replace(_cheap(1.0, seed=1).config, dataset="mnist")  # not here: fails to load
    tasks = [_cheap(1.0), _cheap(2.0), WarmTask("rr", True, config=broken)]
    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks)
    lines = []
    status = run_warm("digits", isolated_cache, lambda s, line: lines.append(line), workers=2)
    assert status.state == "failed" and status.done == 2 and status.total == 3
    assert len(status.failures) == 1 and "rr ε=1 seed=1" in status.failures[0]
    cache = ResultCache(isolated_cache)
    assert all(lookup(t.config, cache) is not None for t in tasks[:2])
    assert status.pages == {"rr": [2, 3]}
    assert read_status(isolated_cache, "digits") == status
    assert len(lines) == 3 and not status.running()

    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks[:2])
    again = run_warm("digits", isolated_cache, lambda s, line: lines.append(line), workers=2)
    assert again.state == "finished" and again.done == again.total == 2
    assert len(lines) == 3, "a second warm computes nothing"


def test_the_time_left_comes_from_points_of_the_same_kind(isolated_cache: Path):
    estimate = Estimate(ResultCache(isolated_cache))
    fast, slow = _cheap(1.0), _cheap(1.0, batch_size=64)
    assert estimate.of(fast) is None  # nothing measured yet: no guess
    estimate.add(fast, 1.0)
    estimate.add(fast, 3.0)
    assert estimate.of(fast) == 2.0
    assert estimate.of(slow) == 2.0  # a kind not seen yet: the median of its family's points
    estimate.add(slow, 10.0)
    started = time.monotonic() - 4.0
    left = estimate.left([fast, fast, slow], {"future": (slow, started)}, workers=2)
    assert left == pytest.approx(2.0 + 2.0 + 10.0, abs=0.1)  # one worker takes all three


def test_a_status_file_from_elsewhere_is_ignored_not_trusted(isolated_cache: Path):
    isolated_cache.mkdir(parents=True, exist_ok=True)
    path = warm.status_path(isolated_cache, "digits")
    path.write_text(json.dumps({"dataset": "digits", "total": 1, "evil": True}))
    assert read_status(isolated_cache, "digits") is None
    path.write_text("not json")
    assert read_status(isolated_cache, "digits") is None


def test_a_workers_cache_counts_the_seconds_of_shared_artefacts_once(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    clock = [0.0]
    monkeypatch.setattr(warm.time, "perf_counter", lambda: clock[0])
    cache = warm._TimedCache(str(isolated_cache))

    def slow(inner: bool = False) -> dict:
        clock[0] += 1.0  # one second of computing
        if inner:
            cache.json_or_compute("baseline", {"inner": 1}, slow, required=["x"])
        return {"x": 1}

    cache.json_or_compute("baseline", {"seed": 0}, lambda: slow(inner=True), required=["x"])
    assert cache.shared_seconds == 2.0  # the nested artefact counted once, inside its parent
    cache.json_or_compute("baseline", {"seed": 0}, slow, required=["x"])  # read, not computed
    cache.json_or_compute("audit", {"case": 0}, slow, required=["x"])  # a point of its own
    assert cache.shared_seconds == 2.0


def _audit_task(epsilon: float = 2.0) -> WarmTask:
    return WarmTask(MODEL_AUDITS, False, model_audit=("rr", "digits", epsilon))


def test_the_model_audits_are_a_phase_of_their_own_after_the_pages():
    tasks = warm_tasks("digits")
    phases = [t.phase for t in tasks]
    assert set(phases) == {warm.PAGES, MODEL_AUDITS}
    assert phases == sorted(phases, key=[warm.PAGES, MODEL_AUDITS].index), "pages first"
    assert all((t.phase == MODEL_AUDITS) == (t.model_audit is not None) for t in tasks)


def test_the_model_audits_go_longest_family_first_so_no_worker_waits_at_the_end():
    """The last audit leaves the other worker idle: a long one last costs the warm its length.

    Replayed on the timeline bench/warm_speed.py measured at b395e5b (2 workers), the warm
    ends 5.6 s sooner (497.1 s against 491.5 s, as soon as every audit by its own length).
    """
    rates = reference_rates("digits")
    audits = [t.model_audit for t in warm_tasks("digits") if t.phase == MODEL_AUDITS]
    seconds = [rates[f"model audit {mechanism}"] for mechanism, _, _ in audits]
    assert seconds == sorted(seconds, reverse=True)
    assert sorted(audits) == sorted(
        (m, "digits", e) for m, e in demo_model_audits(ON_COMPARE, "digits")
    )
    assert len(set(seconds)) > 1, "the rates tell the families apart"


def test_two_model_audits_of_one_mechanism_never_train_side_by_side(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    # They share trainings (the control without privacy, and 2 ε of one is the other's run):
    # side by side both would train them; one after the other, the second reads the cache.
    tasks = [
        WarmTask(MODEL_AUDITS, False, model_audit=(mechanism, "digits", epsilon))
        for mechanism, epsilon in [("rr", 1.0), ("rr", 2.0), ("rr", 4.0), ("lp-2st", 1.0)]
    ]
    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks)
    monkeypatch.setattr(warm, "_pool", lambda cache_dir, workers: ThreadPoolExecutor(workers))
    spans, lock, rr_done = {}, threading.Lock(), threading.Event()

    def compute(task: WarmTask) -> tuple[float, float]:
        started = time.monotonic()
        if task.model_audit[0] == "lp-2st":  # the other worker stays busy with it throughout
            rr_done.wait(timeout=30)
        else:
            time.sleep(0.05)
        with lock:
            spans[task.model_audit] = (started, time.monotonic())
            if sum(mechanism == "rr" for mechanism, _, _ in spans) == 3:
                rr_done.set()
        return 0.1, 0.0

    monkeypatch.setattr(warm, "_compute", compute)
    status = run_warm("digits", isolated_cache, lambda s, line: None, workers=2)
    assert status.state == "finished" and len(spans) == 4
    rr = sorted(spans[t.model_audit] for t in tasks[:3])
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(rr))
    assert spans[tasks[3].model_audit][0] < rr[1][0], "the other family ran beside the first"


def test_until_pages_stops_at_the_first_views_and_stops_leaving_bands_and_audits_for_later(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch
):
    # Issue 52: it stops "when every page's first view and slider stops are ready"; the
    # curves' other seeds (their bands) wait with the model audits.
    stop = replace(_cheap(2.0), first_view=False)
    band = WarmTask("rr", False, config=_cheap(1.0, seed=1).config, band=True)
    tasks = [_cheap(1.0), stop, band, _audit_task()]
    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks)
    status = run_warm("digits", isolated_cache, lambda s, line: None, workers=1, until_pages=True)
    assert status.state == "finished" and status.done == status.total == 2
    assert status.phases == {warm.PAGES: [2, 2]}
    assert (status.later_bands, status.later) == (1, 1)
    assert warm.left_text(status).endswith(
        "; 1 band points of the curves and 1 model audits left for a later warm"
    )
    cache = ResultCache(isolated_cache)
    assert not warm._is_stored(band, cache) and not warm._is_stored(tasks[3], cache)
    assert warm.coverage("digits", isolated_cache).state == "incomplete"


def test_the_bands_are_the_curves_other_seeds_and_nothing_else():
    tasks = warm_tasks("digits")
    bands = {t.config for t in tasks if t.band}
    others = {c for c in demo_configs("digits", class_stops=False) if c.seed != DEMO_SEEDS[0]}
    assert bands == others and len(bands) == sum(t.band for t in tasks)
    assert not any(t.band and (t.first_view or t.phase != warm.PAGES) for t in tasks)


def test_the_time_left_says_when_the_pages_are_ready_and_what_waits():
    status = warm.WarmStatus("digits", total=5, pages={"rr": [1, 2], "audit": [3, 3]})
    assert warm.left_text(status) == "time left unknown yet; first views ready: 1/2"
    status.phases = {warm.PAGES: [4, 4], MODEL_AUDITS: [0, 1]}
    status.seconds_left, status.pages_seconds_left = 1500.0, 80.0
    assert warm.left_text(status) == (
        "about 25 min left (the pages' points: about 80 s); first views ready: 1/2"
    )
    status.pages_seconds_left = 0.0
    assert "(the pages' points: ready)" in warm.left_text(status)
    status.phases, status.later = {warm.PAGES: [4, 4]}, 12
    assert warm.left_text(status).endswith("; 12 model audits left for a later warm")
