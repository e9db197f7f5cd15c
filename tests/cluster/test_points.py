"""Points on a Dask cluster (real worker processes, no mocks): equal to in-process runs, stored
by the client once each, faults reported per point, malformed answers refused."""

import hashlib
import json
import os
import signal

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.cluster import model_audits_on_cluster, run_on_cluster
from labeldp_core.cluster.points import _MalformedAnswerError, _store_run
from labeldp_core.experiments import lookup, make_config, run
from labeldp_core.experiments.runner import result_key
from labeldp_core.model_audit import audit_model

# One worker of `pytest -n` runs every test that starts Dask or worker processes.
pytestmark = pytest.mark.xdist_group("cluster")

LOGISTIC = {"model": "logistic"}


def _configs(epsilons, dataset: str = "digits"):
    return [
        make_config("rr", dataset, epsilon, seed, 1, LOGISTIC)
        for epsilon in epsilons
        for seed in (0, 1)
    ]


def _without_timing(result) -> dict:
    fields = result.to_dict()
    for name in ("elapsed_s", "cached"):
        fields.pop(name)
    return fields


class CountingCache(ResultCache):
    """A client cache that counts how often each key is written."""

    def __init__(self, directory) -> None:
        super().__init__(directory)
        self.writes: dict[str, int] = {}

    def put_entry(self, key: str, kind: str, body: bytes, identity: str) -> None:
        super().put_entry(key, kind, body, identity)
        self.writes[key] = self.writes.get(key, 0) + 1


def test_a_sweep_on_two_workers_equals_the_sweep_in_process(dask_cluster, tmp_path):
    configs = [*_configs([1.0, 4.0]), make_config("rr-prior", "digits", 2.0, 0, 1, LOGISTIC)]
    report = run_on_cluster(dask_cluster, configs, ResultCache(tmp_path / "client"))
    assert (report.computed, report.cached, report.failures) == (len(configs), 0, [])
    assert [r.cached for r in report.results] == [False] * len(configs)
    local = ResultCache(tmp_path / "local")
    for config, remote in zip(configs, report.results, strict=True):
        assert _without_timing(remote) == _without_timing(run(config, local)), config
    # The artefact a result names came with it: it reads back in the client's cache.
    prior = report.results[-1].details["set_sizes_artifact"]
    assert ResultCache(tmp_path / "client").get_arrays(prior) is not None


def test_a_worker_trains_on_the_clients_thread_count_whatever_its_own(
    dask_cluster, tmp_path, monkeypatch
):
    """The workers started with the suite's environment (one thread); this client asks for two."""
    monkeypatch.setenv("LABELDP_TORCH_THREADS", "2")
    config = make_config("rr", "digits", 1.0, 0, 1, LOGISTIC)
    report = run_on_cluster(dask_cluster, [config], ResultCache(tmp_path / "client"))
    assert report.failures == [] and report.results[0].details["torch_threads"] == 2
    local = run(config, ResultCache(tmp_path / "local"))
    assert _without_timing(report.results[0]) == _without_timing(local)


def test_model_audits_train_on_the_workers_and_read_back_as_audits_computed_here(
    dask_cluster, tmp_path
):
    quick = {"dataset": "digits", "epochs": 2, "settings": LOGISTIC}
    points = [{"mechanism": "rr", "epsilon": e, **quick} for e in (1.0, 4.0)]
    cache = CountingCache(tmp_path / "client")
    report = model_audits_on_cluster(dask_cluster, points, cache)
    # Three trainings per audit, each a task of its own, each stored once by the client: the
    # two audits' non-private trainings are one entry (same canaries, no budget).
    assert (report.computed, report.cached, report.failures) == (6, 0, [])
    assert sorted(cache.writes.values()) == [1] * 5
    local = ResultCache(tmp_path / "local")
    here = [audit_model("rr", epsilon=e, cache=local, **quick) for e in (1.0, 4.0)]
    assert report.results == here
    again = model_audits_on_cluster(dask_cluster, points, cache)
    assert (again.computed, again.cached, again.results) == (0, 2, here)


def test_points_already_stored_are_not_sent_again(dask_cluster, tmp_path):
    cache = ResultCache(tmp_path / "client")
    configs = _configs([2.0])
    run(configs[0], cache)
    report = run_on_cluster(dask_cluster, configs, cache)
    assert (report.computed, report.cached) == (1, 1)
    assert [r.cached for r in report.results] == [True, False]


def test_a_worker_killed_mid_sweep_is_replaced_and_every_point_is_stored_once(
    dask_cluster, tmp_path
):
    cache = CountingCache(tmp_path / "client")
    configs = _configs([0.5, 1.5, 2.5, 3.5])
    address, victim = sorted(dask_cluster.client.run(os.getpid).items())[0]
    killed = []

    def kill_once(fraction: float, message: str) -> None:
        # Called once the points are sent: kill the victim as soon as it holds one of them.
        while not killed:
            running = dask_cluster.client.processing([address])[address]
            if running:
                os.kill(victim, signal.SIGKILL)
                killed.append(running)

    report = run_on_cluster(dask_cluster, configs, cache, kill_once)
    assert killed and report.failures == [] and report.computed == len(configs)
    result_keys = {result_key(cache, config) for config in configs}
    assert {key: cache.writes.get(key) for key in result_keys} == dict.fromkeys(result_keys, 1)
    assert all(lookup(config, cache) is not None for config in configs)
    dask_cluster.client.wait_for_workers(2, timeout=120)  # the nanny started a new worker
    assert victim not in dask_cluster.client.run(os.getpid).values()


def test_a_point_failing_on_its_worker_is_reported_and_the_others_are_stored(
    dask_cluster, tmp_path
):
    cache = ResultCache(tmp_path / "client")
    missing = make_config("rr", "mnist", 1.0, 0, 1, LOGISTIC)  # no MNIST on these workers
    fine = _configs([3.0])
    report = run_on_cluster(dask_cluster, [missing, *fine], cache)
    assert report.computed == 2 and len(report.failures) == 1
    (failure,) = report.failures
    assert json.loads(failure.point) == missing.to_dict()
    assert failure.error.startswith("DatasetUnavailableError: ")
    assert "is not on this machine" in failure.error
    assert lookup(missing, cache) is None and all(lookup(c, cache) for c in fine)
    assert "1 failed" in report.summary() and f"failed: {failure.point}" in report.summary()


def _entries_of(config, tmp_path):
    """What a worker returns for ``config``: the entries its run found or stored."""
    from labeldp_core.cluster.worker import _RecordingCache

    worker = _RecordingCache(str(tmp_path / "worker"))
    with worker.recording() as touched:
        run(config, worker)
    return worker, worker.entries(list(touched))


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [
        (lambda value: value | {"epsilon_spent": value["epsilon"] * 2}, "refused"),
        (lambda value: value | {"epsilon": 3.0, "epsilon_spent": 3.0}, "another point"),
        (lambda value: value | {"test_accuracy": "high"}, "refused"),
        (lambda value: [value], "refused"),
    ],
    ids=["spends-more-than-asked", "another-points-result", "accuracy-as-text", "not-an-object"],
)
def test_a_malformed_result_is_refused_and_nothing_is_stored(tmp_path, tamper, reason):
    config = make_config("rr", "digits", 1.0, 0, 1, LOGISTIC)
    worker, entries = _entries_of(config, tmp_path)
    key = result_key(worker, config)
    tampered = [
        (k, kind, json.dumps(tamper(json.loads(body))).encode() if k == key else body, identity)
        for k, kind, body, identity in entries
    ]
    client = ResultCache(tmp_path / "client")
    with pytest.raises(_MalformedAnswerError, match=reason):
        _store_run(client, config, tampered)
    assert lookup(config, client) is None and key not in client


def test_a_result_without_the_artefact_it_names_is_refused(tmp_path):
    config = make_config("rr-prior", "digits", 1.0, 0, 1, LOGISTIC)
    worker, entries = _entries_of(config, tmp_path)
    artefact = lookup(config, worker).details["set_sizes_artifact"]
    client = ResultCache(tmp_path / "client")
    with pytest.raises(_MalformedAnswerError, match="artefact"):
        _store_run(client, config, [e for e in entries if e[0] != artefact])
    assert lookup(config, client) is None
    assert _store_run(client, config, entries).details["set_sizes_artifact"] == artefact


def test_an_interrupted_client_keeps_what_returned_and_a_rerun_sends_only_the_rest(
    dask_cluster, tmp_path
):
    cache = ResultCache(tmp_path / "client")
    configs = _configs([0.75, 1.75, 2.75])

    def interrupt_after_two(fraction: float, message: str) -> None:
        if message.startswith("2/"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_on_cluster(dask_cluster, configs, cache, interrupt_after_two)
    stored = [config for config in configs if lookup(config, cache) is not None]
    assert len(stored) == 2
    report = run_on_cluster(dask_cluster, configs, cache)
    assert (report.cached, report.computed, report.failures) == (2, len(configs) - 2, [])
    assert all(lookup(config, cache) is not None for config in configs)


def test_another_points_result_slipped_into_an_answer_is_refused(tmp_path):
    config = make_config("rr", "digits", 1.0, 0, 1, LOGISTIC)
    other = make_config("rr", "digits", 2.0, 0, 1, LOGISTIC)
    worker, entries = _entries_of(config, tmp_path)
    _, theirs = _entries_of(other, tmp_path / "other")
    other_result = next(body for key, kind, body, _ in theirs if key == result_key(worker, other))
    third = make_config("rr", "digits", 3.0, 0, 1, LOGISTIC)
    third_key = result_key(worker, third)
    slipped = (third_key, "json", other_result, third_key.identity)
    client = ResultCache(tmp_path / "client")
    with pytest.raises(_MalformedAnswerError, match="under another point's key"):
        _store_run(client, config, [slipped, *entries])
    assert lookup(third, client) is None and lookup(config, client) is None


def test_every_stored_entry_knows_what_it_is_and_an_identity_of_another_key_is_refused(tmp_path):
    config = make_config("rr-prior", "digits", 1.0, 0, 1, LOGISTIC)
    _, entries = _entries_of(config, tmp_path)
    assert all(type(key) is str for key, *_ in entries)  # plain text on the wire
    clusters = next(e for e in entries if json.loads(e[3])["kind"] == "image-clusters")
    timing = next(e for e in entries if json.loads(e[3])["kind"] == "timing")
    for identity in (timing[3], None):  # the clusters' bytes under their key, wearing another's
        disguised = [(*e[:3], identity) if e is clusters else e for e in entries]
        client = ResultCache(tmp_path / "refusing")
        with pytest.raises(_MalformedAnswerError, match="identity"):
            _store_run(client, config, disguised)
        assert len(client) == 0
    client = ResultCache(tmp_path / "client")
    _store_run(client, config, entries)
    # All but the worker's timing (the client records its own).
    assert set(client.stored_keys()) == {key for key, *_ in entries} - {timing[0]}
    for key in client.stored_keys():
        assert hashlib.sha256(client.entry(key)[2].encode()).hexdigest() == key
