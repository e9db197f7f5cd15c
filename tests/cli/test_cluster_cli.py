"""The command line on a Dask cluster: the same numbers, and exit 1 naming each failed point."""

import json

import pytest

from labeldp_core.__main__ import main
from labeldp_core.services.release_audits import audit_mechanism

# One worker of `pytest -n` runs every test that starts Dask or worker processes.
pytestmark = pytest.mark.xdist_group("cluster")

SWEEP = ["sweep", "rr", "--epochs", "1", "--set", "model=logistic", "--json"]


def test_a_sweep_on_a_scheduler_prints_what_a_sweep_in_process_prints(dask_cluster, capsys):
    address = ["--scheduler", dask_cluster.client.scheduler.address]
    assert main([*SWEEP, "--dataset", "digits", "--epsilons", "1.25", *address]) == 0
    captured = capsys.readouterr()
    assert "Dask cluster: 2 workers" in captured.err and "1 points computed" in captured.err
    (remote,) = json.loads(captured.out)
    assert remote["cached"] is False
    assert main([*SWEEP, "--dataset", "digits", "--epsilons", "1.25"]) == 0
    (local,) = json.loads(capsys.readouterr().out)
    assert local["cached"] is True  # stored by the client as the cluster returned it
    assert {k: v for k, v in remote.items() if k not in ("elapsed_s", "cached")} == {
        k: v for k, v in local.items() if k not in ("elapsed_s", "cached")
    }


def test_points_failing_on_the_workers_exit_1_with_each_named(dask_cluster, capsys):
    address = ["--scheduler", dask_cluster.client.scheduler.address]
    status = main([*SWEEP, "--dataset", "mnist", "--epsilons", "1", "2", *address])
    captured = capsys.readouterr()
    assert status == 1 and json.loads(captured.out) == []
    failed = [line for line in captured.err.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 2 and all('"dataset": "mnist"' in line for line in failed)
    assert all(
        "DatasetUnavailableError: dataset 'mnist' is not on this machine" in line for line in failed
    )
    assert "0 points computed on the cluster and stored, 0 already stored, 2 failed" in captured.err


def test_an_audit_on_a_scheduler_finds_the_bounds_found_in_process(dask_cluster, capsys):
    address = ["--scheduler", dask_cluster.client.scheduler.address]
    argv = ["audit", "rr", "--epsilon", "1", "--trials", "20000", "--seed", "3", "--json"]
    assert main([*argv, *address]) == 0
    remote = json.loads(capsys.readouterr().out)["results"]
    local = [result.to_dict() for result in audit_mechanism("rr", 1.0, 20000, 3)]
    assert remote == local and len(remote) >= 2  # its case and its negative control


def test_a_model_audit_on_a_scheduler_prints_what_the_audit_in_process_prints(
    dask_cluster, capsys, tmp_path, monkeypatch
):
    argv = ["audit", "rr", "--model", "--dataset", "digits", "--epsilon", "2", "--epochs", "2"]
    argv += ["--set", "model=logistic", "--json"]
    address = ["--scheduler", dask_cluster.client.scheduler.address]
    assert main([*argv, *address]) == 0
    captured = capsys.readouterr()
    assert "3 points computed on the cluster and stored, 0 already stored, 0 failed" in captured.err
    remote = json.loads(captured.out)
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(tmp_path / "elsewhere"))  # computed here again
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == remote
