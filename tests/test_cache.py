import copy
import hashlib
import io
import json
import os
import pickle
import sqlite3
import stat
import zipfile

import diskcache
import numpy as np
import pytest

from labeldp_core.cache import CorruptEntryError, ResultCache


def test_json_round_trip(cache):
    key = cache.key("result", {"epsilon": 1.0, "mechanism": "rr"}, "family:randomized_response")
    assert cache.get_json(key) is None
    cache.put_json(key, {"a": [1, 2.5], "b": "x"})
    assert cache.get_json(key) == {"a": [1, 2.5], "b": "x"}


def test_arrays_round_trip_large_enough_to_live_in_a_file(cache):
    key = cache.key("votes", {"teachers": 250})
    votes = np.random.default_rng(0).integers(0, 10, size=(250, 1000))
    cache.put_arrays(key, {"votes": votes, "ids": np.arange(3)})
    found = cache.get_arrays(key)
    np.testing.assert_array_equal(found["votes"], votes)
    np.testing.assert_array_equal(found["ids"], np.arange(3))


def test_key_is_canonical_and_sensitive_to_content(cache):
    assert cache.key("r", {"a": 1, "b": 2}) == cache.key("r", {"b": 2, "a": 1})
    assert cache.key("r", {"a": 1}) != cache.key("r", {"a": 2})
    assert cache.key("r", {"a": 1}) != cache.key("baseline", {"a": 1})


def test_directory_is_owner_only(cache):
    mode = stat.S_IMODE(os.stat(cache.directory).st_mode)
    assert mode == 0o700


def test_an_existing_directory_keeps_its_permissions(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    ResultCache(shared).close()
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o755  # only a folder it creates is 0700
    fresh = ResultCache(tmp_path / "a" / "b")
    assert stat.S_IMODE(os.stat(fresh.directory).st_mode) == 0o700
    fresh.close()


def test_nothing_on_disk_is_pickled(cache):
    cache.put_json(cache.key("r", {"i": 1}), {"x": 1})
    cache.put_arrays(cache.key("a", {"i": 2}), {"x": np.zeros((200, 200))})
    with sqlite3.connect(cache.directory / "cache.db") as db:
        rows = db.execute("SELECT mode, value, filename FROM Cache").fetchall()
    assert len(rows) == 2
    assert {mode for mode, _, _ in rows} <= {diskcache.core.MODE_RAW, diskcache.core.MODE_BINARY}
    for _, value, filename in rows:
        blob = bytes(value) if value is not None else (cache.directory / filename).read_bytes()
        assert blob[:1] in (b"J", b"N")
        assert not blob.startswith(b"\x80")  # a pickle stream starts with PROTO


class _Exploit:
    """Unpickling this would create a file: proof that code ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_planted_pickle_is_refused_not_executed(cache, tmp_path):
    marker = tmp_path / "pwned"
    key = cache.key("result", {"epsilon": 1.0})
    # An attacker with write access to the folder plants a pickled value under a real key.
    with diskcache.Cache(str(cache.directory)) as plain:
        plain.set(key, _Exploit(str(marker)))
    assert cache.get_json(key) is None
    assert not marker.exists()
    # The refused row is gone, so the next computation can store its result.
    assert key not in cache
    found = cache.json_or_compute("result", {"epsilon": 1.0}, lambda: {"ok": True}, required=["ok"])
    assert found == {"ok": True}


def test_corrupt_entry_is_recomputed(cache):
    key = cache.key("result", {"epsilon": 2.0})
    cache._store.set(key, b"J{not json")
    calls = []
    value = cache.json_or_compute(
        "result", {"epsilon": 2.0}, lambda: calls.append(1) or {"v": 1}, required=["v"]
    )
    assert value == {"v": 1} and calls == [1]
    again = cache.json_or_compute("result", {"epsilon": 2.0}, calls.append, required=["v"])
    assert again == {"v": 1} and calls == [1]


def test_a_stored_object_without_the_keys_the_caller_reads_is_recomputed(cache):
    cache.put_json(cache.key("baseline", {"seed": 0}), {"curve": [0.5]})
    value = cache.json_or_compute(
        "baseline", {"seed": 0}, lambda: {"score": 0.9, "curve": [0.9]}, required=["score"]
    )
    assert value["score"] == 0.9
    assert cache.get_json(cache.key("baseline", {"seed": 0}))["score"] == 0.9
    cache.put_arrays(cache.key("votes", {"seed": 0}), {"other": np.zeros(2)})
    arrays = cache.arrays_or_compute(
        "votes", {"seed": 0}, lambda: {"votes": np.ones(2)}, required=["votes"]
    )
    np.testing.assert_array_equal(arrays["votes"], np.ones(2))


def test_only_bytes_and_str_keys_are_accepted(cache):
    with pytest.raises(TypeError):
        cache._store.set("k", {"a": 1})
    with pytest.raises(TypeError):
        cache._store.set(("tuple", "key"), b"x")


def test_default_directory_follows_environment(isolated_cache):
    store = ResultCache()
    assert store.directory == isolated_cache
    store.close()


def _npy_bytes() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.arange(3))
    return buffer.getvalue()


def _zip_without_arrays() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "not an array")
    return buffer.getvalue()


#: Blobs that are not a JSON object: empty, not JSON, JSON of another type, a non-finite number,
#: an arrays entry.
NOT_A_JSON_OBJECT = [
    b"J",
    b"J{not json",
    b"J\xff\xfe",
    b"J[1,2]",
    b'J"text"',
    b'J{"a": NaN}',
    b"N",
]
#: Blobs that are not an .npz of arrays: empty, a bare .npy, a truncated or foreign zip, JSON.
NOT_AN_NPZ = [b"N", b"N" + _npy_bytes(), b"NPK\x03\x04broken", b"N" + _zip_without_arrays(), b"J{}"]


DAMAGED = [("json", blob) for blob in NOT_A_JSON_OBJECT] + [("arrays", blob) for blob in NOT_AN_NPZ]


@pytest.mark.parametrize(("kind", "blob"), DAMAGED, ids=lambda case: repr(case)[:24])
def test_a_damaged_blob_is_dropped_and_recomputed(cache, kind, blob):
    get, or_compute, value = {
        "json": (cache.get_json, cache.json_or_compute, {"v": 1}),
        "arrays": (cache.get_arrays, cache.arrays_or_compute, {"v": np.arange(4)}),
    }[kind]
    key = cache.key(kind, {"epsilon": 3.0})
    cache._store.set(key, blob)
    assert get(key) is None
    assert key not in cache
    cache._store.set(key, blob)
    found = or_compute(kind, {"epsilon": 3.0}, lambda: value, required=["v"])
    np.testing.assert_equal(found, value)
    np.testing.assert_equal(get(key), value)


def test_editing_the_demo_grid_keeps_every_key_and_editing_a_runner_does_not(tmp_path):
    # The demo grid (which points `warm` computes) is not code that computes results: adding a
    # seed to it must not invalidate a warmed cache. A runner is, and must.
    import shutil

    from labeldp_core.cache import fingerprint

    package = tmp_path / "labeldp_core"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(fingerprint.PACKAGE_DIR, package, ignore=skip)

    def every_family() -> str:  # read again after each edit (not the process's copy)
        return fingerprint._fingerprint.__wrapped__(fingerprint.EVERY_FAMILY, package)

    before = every_family()
    grid = package / "experiments" / "demo.py"  # beside the runner, outside its imports
    assert grid.is_file()
    with grid.open("a", encoding="utf-8") as demo:
        demo.write("\nDEMO_SEEDS = (0, 1, 2, 3)\n")
    assert every_family() == before
    for changed in COMPUTING_FILES:  # each edit must change the fingerprint again
        assert (package / changed).is_file(), changed
        with (package / changed).open("a", encoding="utf-8") as source:
            source.write("\nA_CHANGED_LINE = 1\n")
        after = every_family()
        assert after != before, changed
        before = after


#: A file of each place whose code computes results: a family's release, runner and declaration,
#: the engine's hand-off of noise, the noise plans, the training loop, the runner.
COMPUTING_FILES = (
    "noise/randomized_response.py",
    "families/randomized_response/experiment.py",
    "families/rr_prior/__init__.py",
    "engine/blocks/release_noise.py",
    "noise/noise_plans.py",
    "training/loop.py",
    "experiments/runner.py",
)


def test_a_key_knows_the_text_it_hashes_and_its_entry_keeps_it(cache):
    key = cache.key("baseline", {"seed": 0})
    assert hashlib.sha256(key.identity.encode()).hexdigest() == key
    assert json.loads(key.identity)["kind"] == "baseline"
    assert json.loads(key.identity)["payload"] == {"seed": 0}
    cache.put_json(key, {"score": 0.9})
    votes = cache.key("votes", {"seed": 0})
    cache.put_arrays(votes, {"votes": np.zeros(2)})
    assert cache.entry(key) == ("json", b'{"score": 0.9}', key.identity)
    assert cache.entry(votes)[2] == votes.identity
    # Stored as text, not pickled (diskcache pickles a key that is not exactly a str).
    with sqlite3.connect(cache.directory / "cache.db") as db:
        rows = db.execute("SELECT key, raw, tag FROM Cache").fetchall()
    assert {(type(k), raw) for k, raw, _ in rows} == {(str, 1)}
    assert (str(key), 1, key.identity) in rows
    # An entry stored under a bare key has no identity.
    cache.put_json(str(cache.key("r", {"i": 1})), {"x": 1})
    assert cache.entry(cache.key("r", {"i": 1}))[2] is None


def test_a_key_survives_copies_and_pickles_whole(cache):
    key = cache.key("rr-prior-set-sizes", {"epsilon": 1.0})
    for copied in (copy.copy(key), copy.deepcopy(key), pickle.loads(pickle.dumps(key))):
        assert copied == key and copied.identity == key.identity
    assert copy.deepcopy({"set_sizes_artifact": key})["set_sizes_artifact"] == key


def test_put_entry_refuses_an_identity_that_is_not_its_keys(cache):
    key, other = cache.key("timing", {"i": 1}), cache.key("timing", {"i": 2})
    for identity in (other.identity, None, key.identity + " "):
        with pytest.raises(CorruptEntryError, match="identity"):
            cache.put_entry(key, "json", b'{"seconds": [1.0]}', identity)
    assert key not in cache
    cache.put_entry(key, "json", b'{"seconds": [1.0]}', key.identity)
    assert cache.entry(key)[2] == key.identity
