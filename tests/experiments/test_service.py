"""The compute service: worker processes, one job per point, the same numbers under any load."""

import os
import signal
import time
from pathlib import Path

import pytest
import torch

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config
from labeldp_core.experiments.service import ComputeService, JobFailedError, default_workers

FAST = {"model": "logistic"}


def _config(epsilon: float, epochs: int = 1, dataset: str = "digits"):
    return make_config("rr", dataset, epsilon, 0, epochs, FAST)


@pytest.fixture
def service(tmp_path):
    """A service of one worker; the test of two workers side by side starts its own. The
    workers are forked from this process's forkserver, which imported torch and the library
    once (:mod:`labeldp_core.experiments.forked_workers`)."""
    started = ComputeService(tmp_path / "cache", workers=1, threads=1)
    yield started
    started.shutdown()


def _until(condition, what: str, patience_s: float = 120.0) -> None:
    """Wait for ``condition``; a hang fails with ``what`` (not a time limit on the work itself)."""
    deadline = time.monotonic() + patience_s
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_workers_default_to_one_per_core_and_follow_the_environment(monkeypatch):
    monkeypatch.delenv("LABELDP_WORKERS")
    assert default_workers() == max(1, os.cpu_count() or 1)
    monkeypatch.setenv("LABELDP_WORKERS", "3")
    assert default_workers() == 3


def test_one_point_asked_twice_is_one_job_computed_once_and_cached(service, tmp_path):
    first, second = service.submit(_config(1.0)), service.submit(_config(1.0))
    assert first is second and first.waiters == 2
    result = first.result()
    assert result == second.result() and not result.cached
    found = lookup(_config(1.0), ResultCache(tmp_path / "cache"))
    assert found is not None and found.test_accuracy == result.test_accuracy


def test_concurrent_trainings_each_run_on_their_own_threads(tmp_path):
    two = ComputeService(tmp_path / "cache", workers=2, threads=1)
    try:
        before = torch.get_num_threads()
        jobs = [two.submit(_config(e)) for e in (1.1, 1.2)]
        _until(lambda: all(job.threads for job in jobs), "both workers to start")
        assert [job.threads for job in jobs] == [1, 1]  # one per worker: 2 cores, 2 workers
        assert torch.get_num_threads() == before  # the server's own setting is untouched
        assert len({job.worker for job in jobs}) == 2  # trained side by side
        for job in jobs:
            job.result()
    finally:
        two.shutdown()


def test_the_same_point_trained_concurrently_in_two_services_gives_identical_numbers(tmp_path):
    services = [ComputeService(tmp_path / name, workers=1, threads=1) for name in ("a", "b")]
    try:
        jobs = [s.submit(_config(1.7, epochs=3)) for s in services]
        _until(lambda: all(job.state != "queued" for job in jobs), "both trainings to start")
        a, b = (job.result() for job in jobs)
    finally:
        for s in services:
            s.shutdown()
    assert a.test_accuracy == b.test_accuracy and a.details["test_curve"] == b.details["test_curve"]
    assert a.flip_rate == b.flip_rate


def test_a_queued_point_nobody_waits_for_is_dropped_and_positions_move_up(tmp_path):
    one = ComputeService(tmp_path / "cache", workers=1, threads=1)
    try:
        running = one.submit(_config(2.1, epochs=400))  # keeps the one worker busy throughout
        _until(lambda: running.state == "running", "the first point to start")
        second, third = one.submit(_config(2.2)), one.submit(_config(2.3))
        assert (second.position, third.position) == (0, 1)
        assert "1 point queued before it" in third.status()
        one.release(second)
        assert second.state == "dropped" and third.position == 0
        with pytest.raises(JobFailedError, match="nobody waits"):
            second.result()
        assert third.state == "queued" and running.state == "running"
    finally:
        one.shutdown()


def test_a_killed_worker_fails_its_point_with_a_reason_and_is_replaced(service):
    job = service.submit(_config(3.1, epochs=40))
    _until(lambda: job.worker is not None, "the training to start")
    os.kill(job.worker, signal.SIGKILL)
    with pytest.raises(JobFailedError, match="worker computing this point stopped"):
        job.result()
    after = service.submit(_config(3.2))
    assert after.result().epsilon == 3.2  # a new worker took over: the service's only one
    assert after.worker != job.worker


def _blocked_writing_to_a_pipe(pid: int) -> bool:
    """Whether a thread of process ``pid`` waits in the kernel for room in a full pipe."""
    threads = Path(f"/proc/{pid}/task")
    return any("pipe_write" in (task / "wchan").read_text() for task in threads.iterdir())


def test_a_worker_killed_in_the_middle_of_a_report_leaves_the_next_points_reporting(service):
    # While the service does not read (its lock held here), the worker's per-epoch reports fill
    # the pipe until its writer waits, a report half-written: then the worker is killed, as the
    # time and memory limits (or the system's out-of-memory killer) kill one. The worker that
    # replaces it must still be heard: on a channel shared by every worker, the dead one held its
    # write lock and left half a message in it, and every later point hung.
    job = service.submit(_config(3.3, epochs=1000))  # a report an epoch
    _until(lambda: job.worker is not None, "the training to start")
    with service._lock:
        _until(
            lambda: _blocked_writing_to_a_pipe(job.worker), "the worker's reports to fill the pipe"
        )
        os.kill(job.worker, signal.SIGKILL)
    with pytest.raises(JobFailedError, match="worker computing this point stopped"):
        job.result()
    after = service.submit(_config(3.4))
    _until(lambda: after.wait(0.1), "the next point, computed by the new worker")
    assert after.result().epsilon == 3.4


def test_workers_are_replaced_after_their_share_of_points(tmp_path):
    recycled = ComputeService(tmp_path / "cache", workers=1, threads=1, tasks_per_worker=1)
    try:
        first, second = recycled.submit(_config(4.1)), recycled.submit(_config(4.2))
        # The second waits for the first worker's successor, never for the exiting worker.
        assert (first.result().epsilon, second.result().epsilon) == (4.1, 4.2)
        assert first.worker != second.worker  # memory of the first training went with it
    finally:
        recycled.shutdown()


def test_shutdown_fails_waiting_jobs_instead_of_leaving_them_hanging(tmp_path):
    stopping = ComputeService(tmp_path / "cache", workers=1, threads=1)
    jobs = [stopping.submit(_config(e, epochs=40)) for e in (5.1, 5.2)]
    stopping.shutdown()
    for job in jobs:
        with pytest.raises(JobFailedError, match="server stopped"):
            job.result()


@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        ({"time_limit_s": 0.5}, "ran past the time limit of 0.5 s"),
        ({"memory_limit_mb": 1}, "past the memory limit of 1 MB"),
    ],
)
def test_a_point_past_its_limits_is_stopped_with_the_reason(tmp_path, limits, reason):
    bounded = ComputeService(tmp_path / "cache", workers=1, threads=1, **limits)
    try:
        job = bounded.submit(_config(6.1, epochs=400))
        with pytest.raises(JobFailedError, match=reason):
            job.result()
        assert lookup(_config(6.1, epochs=400), ResultCache(tmp_path / "cache")) is None
    finally:
        bounded.shutdown()


def test_a_worker_trains_in_the_environment_its_server_has_when_it_starts(tmp_path, monkeypatch):
    # The workers are forked from a forkserver started with this process's first worker, whose
    # environment is this process's of then: each worker adopts the server's of now, as a
    # spawned one did. Here the forkserver surely started before the variable was set.
    ComputeService(tmp_path / "before", workers=1, threads=1).shutdown()
    monkeypatch.setenv("LABELDP_TORCH_THREADS", "2")
    later = ComputeService(tmp_path / "cache", workers=1)
    try:
        job = later.submit(_config(7.1))
        assert job.result().details["torch_threads"] == 2
        assert job.threads == 2
    finally:
        later.shutdown()
