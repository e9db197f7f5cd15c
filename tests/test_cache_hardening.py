"""The cache survives what users and machines do: damage, concurrent writers, killed processes."""

import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config, run, sweep
from labeldp_core.experiments.runner import result_key

ROOT = Path(__file__).resolve().parents[1]
EPOCHS = "1"
WAIT_S = 600  # an upper bound for a loaded machine, not a speed check
POLL_S = 0.05
MAX_POLLS = int(WAIT_S / POLL_S)  # guards against a hung sweep only


#: The command line's sweep, paused for good before its third point, where the test kills it: a
#: 1-epoch digits point takes ~50 ms, so a loaded machine's poller could miss an unpaused sweep.
_SWEEP_PAUSED_AFTER_TWO = """
import sys
import threading

from labeldp_core.__main__ import main
from labeldp_core.experiments import runner

done = []
compute = runner.run


def run_then_pause(*args, **kwargs):
    if len(done) == 2:
        threading.Event().wait()
    done.append(compute(*args, **kwargs))
    return done[-1]


runner.run = run_then_pause
sys.exit(main(sys.argv[1:]))
"""


def _sweep_process(
    cache_dir: Path, epsilons: list[str], entry: tuple[str, str] = ("-m", "labeldp_core")
) -> subprocess.Popen:
    env = dict(os.environ, LABELDP_CACHE_DIR=str(cache_dir))
    return subprocess.Popen(
        [
            sys.executable,
            *entry,
            "sweep",
            "rr",
            "--dataset",
            "digits",
            "--epochs",
            EPOCHS,
            "--epsilons",
            *epsilons,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


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
    process = _sweep_process(isolated_cache, epsilons, entry=("-c", _SWEEP_PAUSED_AFTER_TWO))
    cache = ResultCache(isolated_cache)
    for _ in range(MAX_POLLS):
        if sum(lookup(c, cache) is not None for c in configs) >= 2:
            break
        assert process.poll() is None, f"the sweep ended early: {process.communicate()[1]}"
        time.sleep(POLL_S)
    else:
        process.kill()
        process.wait()
        pytest.fail(f"the sweep seems to hang: fewer than 2 points stored after {MAX_POLLS} polls")
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished = [c for c in configs if lookup(c, cache) is not None]
    assert finished == configs[:2]
    resumed = sweep("rr", "digits", [float(e) for e in epsilons], epochs=int(EPOCHS), cache=cache)
    assert [r.cached for r in resumed] == [c in finished for c in configs]
    assert all(lookup(c, cache) is not None for c in configs)
    cache.close()


def _npy_bytes() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.arange(3))
    return buffer.getvalue()


#: What a damaged or foreign entry under a real run's key can hold: an empty or bare-array value,
#: JSON that is not an object, and an object that is not a whole result.
DAMAGED_RESULTS = [b"N", b"N" + _npy_bytes(), b"J[1,2]", b'J{"mechanism": "rr"}']


@pytest.mark.parametrize("blob", DAMAGED_RESULTS, ids=lambda blob: repr(blob[:16]))
def test_a_damaged_result_is_absent_and_recomputed(cache, blob):
    config = make_config("rr", "digits", 1.0, epochs=1, settings={"model": "logistic"})
    key = result_key(cache, config)
    cache._store.set(key, blob)
    assert lookup(config, cache) is None
    assert key not in cache
    cache._store.set(key, blob)
    result = run(config, cache)
    assert result.cached is False
    assert result.epsilon == 1.0 and 0.0 <= result.test_accuracy <= 1.0
    assert lookup(config, cache).test_accuracy == result.test_accuracy


#: Whole results with one field wrong: a type, a range, the truth rule, another point's identity.
WRONG_FIELDS = {
    "accuracy as text": {"test_accuracy": "0.97"},
    "accuracy above 1": {"test_accuracy": 1.5},
    "spent above asked": {"epsilon_spent": 1.01},
    "spent negative": {"epsilon_spent": -0.5},
    "details a list": {"details": []},
    "settings nested": {"settings": {"model": {"x": 1}}},
    "another epsilon's result": {"epsilon": 8.0, "epsilon_spent": 8.0},
    "another seed's result": {"seed": 3},
    "n_train a float": {"n_train": 1437.5},
}


@pytest.mark.parametrize("wrong", WRONG_FIELDS.values(), ids=WRONG_FIELDS)
def test_a_stored_result_with_a_wrong_field_is_absent_and_recomputed(cache, wrong):
    config = make_config("rr", "digits", 1.0, epochs=1, settings={"model": "logistic"})
    true = run(config, cache)
    key = result_key(cache, config)
    cache.put_json(key, true.to_dict() | wrong)
    assert lookup(config, cache) is None and key not in cache
    cache.put_json(key, true.to_dict() | wrong)
    again = run(config, cache)
    assert again.cached is False and again.test_accuracy == true.test_accuracy


def _stored_in_a_file(cache: ResultCache) -> str:
    """Store arrays large enough for a value file; return their key."""
    key = cache.key("arrays", {"i": 1})
    cache.put_arrays(key, {"x": np.random.default_rng(0).random((300, 300))})
    return key


@pytest.mark.parametrize("kind", ["absolute", "parent", "symlink"])
def test_a_row_naming_a_file_outside_the_cache_neither_reads_nor_deletes_it(cache, tmp_path, kind):
    # A warmed cache handed from one machine to another is anybody's file: a row may name any
    # path. The cache reads and deletes only value files of its own, inside its folder.
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    key = _stored_in_a_file(cache)
    with sqlite3.connect(cache.directory / "cache.db") as db:
        (own,) = db.execute("SELECT filename FROM Cache").fetchone()
        if kind == "symlink":
            (cache.directory / own).unlink()
            (cache.directory / own).symlink_to(victim)
            named = own
        else:
            named = str(victim) if kind == "absolute" else "../../../victim.txt"
        db.execute("UPDATE Cache SET filename = ?", (named,))
    assert cache.get_arrays(key) is None  # refused as damage, the key dropped
    assert key not in cache
    assert victim.read_text() == "keep me"


def test_an_oversized_value_file_is_damage(cache, monkeypatch):
    from labeldp_core.cache import store as cache_module

    key = _stored_in_a_file(cache)
    monkeypatch.setattr(cache_module, "MAX_VALUE_BYTES", 1000)
    assert cache.get_arrays(key) is None


def _npz_with_header(shape: tuple[int, ...]) -> bytes:
    """An .npz whose one member's header claims ``shape`` (float64) but holds 8 bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("x.npy", header.getvalue() + bytes(8))  # the header includes the magic
    return archive.getvalue()


@pytest.mark.parametrize("body", [_npz_with_header((2**40,)), _npz_with_header((2**20, 2**20))])
def test_an_array_claiming_terabytes_is_damage_not_a_memory_error(cache, body):
    key = cache.key("arrays", {"claims": len(body)})
    cache._store.set(key, b"N" + body)
    assert cache.get_arrays(key) is None and key not in cache


def test_an_archive_unpacking_past_the_cap_is_damage(cache, monkeypatch):
    from labeldp_core.cache import store as cache_module

    archive = io.BytesIO()  # 100 kB of zeros, compressed to a few hundred bytes
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("x.npy", bytes(100_000))
    monkeypatch.setattr(cache_module, "MAX_VALUE_BYTES", 50_000)
    key = cache.key("arrays", {"bomb": 1})
    cache._store.set(key, b"N" + archive.getvalue())
    assert cache.get_arrays(key) is None and key not in cache


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("eviction_policy", "no-such-policy"),
        ("sqlite_journal_mode", "bogus"),
        ("disk_min_file_size", -1),
        ("size_limit", 1),
    ],
)
def test_a_hostile_settings_table_is_ignored(isolated_cache, setting, value):
    first = ResultCache(isolated_cache)
    key = first.key("r", {"i": 1})
    first.put_json(key, {"x": 1})
    first.close()
    with sqlite3.connect(isolated_cache / "cache.db") as db:
        db.execute("UPDATE Settings SET value = ? WHERE key = ?", (value, setting))
    again = ResultCache(isolated_cache)
    assert again.get_json(key) == {"x": 1}
    again.put_json(again.key("r", {"i": 2}), {"y": 2})  # still writable, nothing evicted
    assert again.get_json(key) == {"x": 1}
    again.close()


def test_the_result_schema_checks_every_field_of_a_result():
    from dataclasses import fields

    from labeldp_core.engine.result_schema import FIELD_CHECKS
    from labeldp_core.experiments import RunResult

    assert list(FIELD_CHECKS) == [f.name for f in fields(RunResult)]
