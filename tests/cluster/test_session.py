"""Connecting to a cluster: a worker of other code is refused, a scheduler without workers too."""

import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from process_watch import watch_until_gone

from labeldp_core.cluster import ClusterUnavailableError, CodeMismatchError, open_cluster, session
from labeldp_core.cluster.worker import code_identity, compute_point
from labeldp_core.experiments import make_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scheduler():
    """A scheduler with no workers of its own, in this process."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None)
    yield cluster
    cluster.close()


def _stale_copy(folder: Path) -> Path:
    """A copy of the package with one line added to a runner: another code fingerprint."""
    shutil.copytree(
        ROOT / "labeldp_core", folder / "labeldp_core", ignore=shutil.ignore_patterns("__pycache__")
    )
    with (folder / "labeldp_core" / "experiments" / "runner.py").open("a") as runner:
        runner.write("AN_EDIT_THE_CLIENT_DOES_NOT_HAVE = 1\n")
    return folder


def test_a_worker_running_other_code_is_refused_naming_both_versions(scheduler, tmp_path):
    stale = _stale_copy(tmp_path)
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            scheduler.scheduler_address,
            "--nworkers",
            "1",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        cwd=stale,
        env={"PYTHONPATH": str(stale), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        from distributed import Client

        with Client(scheduler) as watcher:
            watcher.wait_for_workers(1, timeout=120)
        with pytest.raises(CodeMismatchError) as refused:
            open_cluster(scheduler=scheduler.scheduler_address)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    message = str(refused.value)
    ours = code_identity()["code"]
    assert message.startswith("worker tcp://")
    assert f"the client runs labeldp 0.1.0 (code {ours}" in message
    theirs = message.split("(code ")[1].split(")")[0]
    assert theirs != ours and len(theirs) == len(ours)


def test_a_task_refuses_a_client_of_other_code():
    config = make_config("rr", "digits", 1.0, 0, 1, {"model": "logistic"}).to_dict()
    other = {"version": "0.0.9", "code": "0123456789abcdef"}
    with pytest.raises(CodeMismatchError, match=r"the client runs labeldp 0\.0\.9 \(code 0123"):
        compute_point(config, other)


def test_a_scheduler_without_workers_is_refused(scheduler, monkeypatch):
    monkeypatch.setattr(session, "CONNECT_TIMEOUT_S", 0.5)
    with pytest.raises(ClusterUnavailableError, match="has no worker: start some with `dask"):
        open_cluster(scheduler=scheduler.scheduler_address)


def test_the_scheduler_comes_from_the_environment_when_no_option_names_it(scheduler, monkeypatch):
    monkeypatch.setattr(session, "CONNECT_TIMEOUT_S", 0.5)
    monkeypatch.setenv("LABELDP_SCHEDULER", scheduler.scheduler_address)
    with pytest.raises(ClusterUnavailableError, match=scheduler.scheduler_address):
        open_cluster()
    monkeypatch.delenv("LABELDP_SCHEDULER")
    assert open_cluster() is None


def test_a_session_whose_event_loop_was_closed_under_it_still_closes_and_ends_its_workers():
    """Closing never raises for Dask's own loop being gone (a teardown order CI once met)."""
    local = open_cluster(workers=1)
    nannies = local.local_cluster.workers.values()
    workers = [psutil.Process(nanny.process.process.pid) for nanny in nannies]
    local.local_cluster._loop_runner.stop()  # what Dask does when the last user of a loop stops
    local.client._loop_runner.stop()
    local.close()
    _, left = watch_until_gone(workers, session.STOP_GRACE_S + 30)
    assert left == []
