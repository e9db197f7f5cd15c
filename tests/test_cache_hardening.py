"""The cache survives what users and machines do: damage, concurrent writers, killed processes."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config, sweep

ROOT = Path(__file__).resolve().parents[1]
EPOCHS = "1"
WAIT_S = 600  # an upper bound for a loaded machine, not a speed check


def _sweep_process(cache_dir: Path, epsilons: list[str]) -> subprocess.Popen:
    env = dict(os.environ, LABELDP_CACHE_DIR=str(cache_dir))
    return subprocess.Popen(
        [sys.executable, "-m", "labeldp_core", "sweep", "rr", "--dataset", "digits",
         "--epochs", EPOCHS, "--epsilons", *epsilons],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _configs(epsilons: list[str]):
    return [make_config("rr", "digits", float(e), epochs=int(EPOCHS)) for e in epsilons]


def test_a_damaged_database_file_is_set_aside_and_the_cache_starts_empty(isolated_cache):
    isolated_cache.mkdir(parents=True)
    (isolated_cache / "cache.db").write_bytes(b"this is not an SQLite database" * 100)
    with pytest.warns(UserWarning, match="set aside"):
        cache = ResultCache(isolated_cache)
    key = cache.key("result", {"x": 1})
    cache.put_json(key, {"ok": True})
    assert cache.get_json(key) == {"ok": True}
    assert len(list(isolated_cache.glob("cache.db.corrupt-*"))) == 1
    cache.close()


def test_two_processes_sweeping_into_one_cache_lose_and_corrupt_nothing(isolated_cache):
    first = ["0.5", "1", "2", "4"]
    second = ["4", "2", "8", "0.25"]
    processes = [_sweep_process(isolated_cache, first), _sweep_process(isolated_cache, second)]
    for process in processes:
        _, err = process.communicate(timeout=WAIT_S)
        assert process.returncode == 0, err
    cache = ResultCache(isolated_cache)
    for config in _configs(sorted(set(first + second), key=float)):
        result = lookup(config, cache)
        assert result is not None, config.epsilon
        assert result.epsilon == config.epsilon
        assert 0.0 <= result.test_accuracy <= 1.0
    cache.close()


def test_a_killed_sweep_keeps_every_finished_point_and_resumes(isolated_cache):
    epsilons = ["0.5", "1", "2", "4", "8", "16"]
    configs = _configs(epsilons)
    process = _sweep_process(isolated_cache, epsilons)
    cache = ResultCache(isolated_cache)
    deadline = time.monotonic() + WAIT_S
    while sum(lookup(c, cache) is not None for c in configs) < 2:
        assert process.poll() is None, "the sweep ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished = [c for c in configs if lookup(c, cache) is not None]
    assert 2 <= len(finished) < len(configs)
    resumed = sweep("rr", "digits", [float(e) for e in epsilons], epochs=int(EPOCHS), cache=cache)
    assert [r.cached for r in resumed] == [c in finished for c in configs]
    assert all(lookup(c, cache) is not None for c in configs)
    cache.close()
