"""`cache export` and `cache import`: a warmed cache travels as checked data, not a database."""

import json
import zipfile

import numpy as np
import pytest

from labeldp_core import cache_transfer
from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.cache_transfer import export_cache, import_cache
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import lookup, make_config, run

FAST = {"model": "logistic"}


@pytest.fixture
def warmed(tmp_path):
    """A cache with two results (and their baselines and timings) and one array entry."""
    store = ResultCache(tmp_path / "warmed")
    configs = [make_config("rr", "digits", e, epochs=1, settings=FAST) for e in (1.0, 4.0)]
    results = [run(config, store) for config in configs]
    store.put_arrays(store.key("arrays", {"i": 1}), {"x": np.arange(6.0).reshape(2, 3)})
    yield store, configs, results
    store.close()


def _rewrite(archive_path, change):
    """Rewrite the archive with ``change(members)`` applied to its {name: bytes}."""
    with zipfile.ZipFile(archive_path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    with zipfile.ZipFile(archive_path, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)


def test_an_exported_cache_imports_whole_into_an_empty_one(warmed, tmp_path):
    store, configs, results = warmed
    path = tmp_path / "warm.zip"
    exported = export_cache(store, path)
    assert exported.moved == len(store) and not exported.refused
    fresh = ResultCache(tmp_path / "fresh")
    imported = import_cache(fresh, path)
    assert (imported.moved, imported.refused) == (len(store), [])
    for config, result in zip(configs, results, strict=True):
        assert lookup(config, fresh).test_accuracy == result.test_accuracy
    key = store.key("arrays", {"i": 1})
    assert np.array_equal(fresh.get_arrays(key)["x"], np.arange(6.0).reshape(2, 3))
    fresh.close()


def _manifest(members) -> dict:
    return json.loads(members["manifest.json"])


def _swap_results(members):
    # Two results swapped between their keys: each is valid, but under another point's name.
    first, second = (n for n, body in members.items() if b'"epsilon_spent"' in body)
    members[first], members[second] = members[second], members[first]


def _wrong_type(members):
    name = next(n for n, body in members.items() if b'"epsilon_spent"' in body)
    value = json.loads(members[name]) | {"test_accuracy": "0.99"}
    members[name] = json.dumps(value).encode()


def _pickled_array(members):
    name = next(n for n in members if n.endswith(".npz"))
    buffer = __import__("io").BytesIO()
    np.savez(buffer, x=np.array([{"a": 1}], dtype=object))
    members[name] = buffer.getvalue()


@pytest.mark.parametrize(
    ("change", "refused", "reason"),
    [
        (_swap_results, 2, "under another point's key"),
        (_wrong_type, 1, "not a valid result: a stored result's test_accuracy"),
        (_pickled_array, 1, "unreadable"),
    ],
    ids=["swapped results", "wrong type", "pickled array"],
)
def test_entries_that_fail_their_checks_are_refused_by_name(warmed, tmp_path, change, refused,
                                                            reason):  # fmt: skip
    store = warmed[0]
    path = tmp_path / "warm.zip"
    export_cache(store, path)
    _rewrite(path, change)
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert len(report.refused) == refused and reason in report.refused[0]
    assert report.moved == len(store) - refused
    assert len(fresh) == report.moved
    fresh.close()


def _other_code(members):
    members["manifest.json"] = json.dumps(_manifest(members) | {"code": "0" * 16}).encode()


def _not_json(members):
    members["manifest.json"] = b"{"


def _too_many(members):
    members["manifest.json"] = json.dumps(
        _manifest(members) | {"entries": [{}] * (cache_transfer.MAX_ENTRIES + 1)}
    ).encode()


@pytest.mark.parametrize(
    ("change", "message"),
    [(_other_code, "made by labeldp"), (_not_json, "is not JSON"), (_too_many, "more than")],
    ids=["other code", "manifest not JSON", "too many entries"],
)
def test_an_archive_from_other_code_or_broken_is_refused_whole(warmed, tmp_path, change, message):
    store = warmed[0]
    path = tmp_path / "warm.zip"
    export_cache(store, path)
    _rewrite(path, change)
    fresh = ResultCache(tmp_path / "fresh")
    with pytest.raises(InvalidInputError, match=message):
        import_cache(fresh, path)
    assert len(fresh) == 0
    fresh.close()


def test_a_member_claiming_more_than_the_cap_is_not_read(warmed, tmp_path, monkeypatch):
    store = warmed[0]
    path = tmp_path / "warm.zip"
    export_cache(store, path)
    monkeypatch.setattr(cache_transfer, "MAX_VALUE_BYTES", 10)
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert report.moved == 0 and all("over 10 bytes" in r for r in report.refused)
    fresh.close()


def test_the_command_line_exports_and_imports(warmed, tmp_path, monkeypatch, capsys):
    store = warmed[0]
    path = tmp_path / "warm.zip"
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(store.directory))
    assert main(["cache", "export", str(path)]) == 0
    assert f"exported to {path}: {len(store)} entries" in capsys.readouterr().out
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(tmp_path / "fresh"))
    assert main(["cache", "import", str(path)]) == 0
    assert f"imported from {path}: {len(store)} entries" in capsys.readouterr().out
    assert main(["cache", "import", str(tmp_path / "missing.zip")]) == 2
    assert "is not a cache archive" in capsys.readouterr().err
