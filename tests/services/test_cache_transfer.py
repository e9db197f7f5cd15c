"""`cache export` and `cache import`: a warmed cache travels as checked data, not a database.

Every entry carries its identity (the kind and payload its key hashes); import recomputes every
key from it and stores only kinds that may travel. Artefacts the privacy proof relies on and
audit verdicts never travel: they are recomputed where they are used.
"""

import hashlib
import io
import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from labeldp_core import __version__
from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache, code_fingerprint, fingerprint
from labeldp_core.cache.fingerprint import unit_code
from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.experiments.runner import result_key
from labeldp_core.families.rr_prior.experiment import PCA_COMPONENTS, SET_SIZES_KIND, load_set_sizes
from labeldp_core.registry import result_unit
from labeldp_core.services import cache_transfer
from labeldp_core.services.cache_transfer import STAYS, TRAVELS, export_cache, import_cache
from labeldp_core.services.release_audits import stored_audit_case

FAST = {"model": "logistic"}
PACKAGE = Path(__file__).resolve().parents[2] / "labeldp_core"
#: A one-line edit an upgrade brings to one family (rr-prior) and no other.
RR_PRIOR_EDIT = "families/rr_prior/experiment.py"


@pytest.fixture
def warmed(tmp_path):
    """Results of rr and rr-prior (baselines, timings, clusters, k* per example), an audit case
    and an entry stored under a bare key (no identity)."""
    store = ResultCache(tmp_path / "warmed")
    configs = [make_config("rr", "digits", e, epochs=1, settings=FAST) for e in (1.0, 4.0)]
    configs.append(make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST))
    results = [run(config, store) for config in configs]
    store.put_json(store.key("audit", _audit_payload(0), result_unit("rr")), _verdict(0.9))
    store.put_json(str(store.key("timing", {"bare": 1})), {"seconds": [1.0]})
    yield store, configs, results
    store.close()


def _kinds(store: ResultCache) -> dict[str, str]:
    """The kind of every entry of ``store`` ("" for one stored without an identity)."""
    kinds = {}
    for key in store.stored_keys():
        identity = store.entry(key)[2]
        kinds[key] = json.loads(identity)["kind"] if identity else ""
    return kinds


def _travelling(store: ResultCache) -> list[str]:
    return [key for key, kind in _kinds(store).items() if kind in TRAVELS]


def _clusters_payload(seed: int = 0, clusters: int = 20) -> dict:
    """What rr-prior's clusters of digits are keyed by (pixels, the default features)."""
    return {"dataset": "digits", "seed": seed, "clusters": clusters, "components": PCA_COMPONENTS}


def _audit_payload(index: int) -> dict:
    return {
        "mechanism": "rr",
        "epsilon": 1.0,
        "index": index,
        "trials": 200_000,
        "seed": 0,
    }


def _verdict(lower_bound: float) -> dict:
    return {
        "name": "forged",
        "claimed_epsilon": 1.0,
        "claimed_delta": 0.0,
        "epsilon_lower_bound": lower_bound,
        "confidence": 0.95,
        "trials": 200_000,
        "neighbours": "x",
        "event": "y",
        "p0": 0.5,
        "p1": 0.5,
        "is_control": True,
    }


def _identity(kind: str, payload: dict, code: str | None = None) -> str:
    """The text a key of ``kind`` and ``payload`` hashes (of this code unless ``code``)."""
    return json.dumps(
        {
            "kind": kind,
            "payload": payload,
            "version": __version__,
            "code": code or unit_code(result_unit(payload.get("mechanism"))),
        },
        sort_keys=True,
        separators=(",", ":"),
    )


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def _write_archive(path, entries) -> None:
    """An archive written by hand, as anyone could: ``(key, type, body, identity)`` entries."""
    lines = []
    with zipfile.ZipFile(path, "w") as archive:
        for key, kind, body, identity in entries:
            archive.writestr(key + (".json" if kind == "json" else ".npz"), body)
            line = {"key": key, "type": kind, "bytes": len(body)}
            lines.append(line if identity is None else line | {"identity": identity})
        archive.writestr(
            "manifest.json",
            json.dumps(
                {
                    "format": cache_transfer.ARCHIVE_FORMAT,
                    "version": __version__,
                    "code": code_fingerprint(),
                    "entries": lines,
                }
            ),
        )


def _rewrite(archive_path, change):
    """Rewrite the archive with ``change(members)`` applied to its {name: bytes}."""
    with zipfile.ZipFile(archive_path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    with zipfile.ZipFile(archive_path, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)


def test_the_forged_clusters_of_the_issue_are_refused_naming_the_entry_and_a_run_recomputes(
    tmp_path, monkeypatch, capsys
):
    # The archive of issue 34: rr-prior's clusters of digits (seed 0, 20 clusters) holding the
    # true labels, under their true key and identity. Imported, rr-prior at epsilon 1 released
    # 100% of the labels correctly and reported epsilon 1.
    labels = load_dataset("digits").y_train
    computed_by = unit_code("labeldp_core.families.rr_prior.experiment")
    identity = _identity("image-clusters", _clusters_payload(), computed_by)
    key = hashlib.sha256(identity.encode()).hexdigest()
    forged = tmp_path / "forged.zip"
    _write_archive(forged, [(key, "arrays", _npz(ids=labels.astype(np.int64)), identity)])
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, forged)
    assert report.moved == 0 and len(report.refused) == 1
    assert report.refused[0].startswith(f"{key[:12]} (image-clusters): ")
    assert "recomputed where it is used" in report.refused[0]
    assert key not in fresh
    result = run(make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST), fresh)
    assert result.epsilon_spent == 1.0 and result.label_accuracy < 0.95  # honest: about 0.82
    recomputed = fresh.get_arrays(key)["ids"]  # the run clustered the images itself
    assert recomputed.shape == labels.shape and not np.array_equal(recomputed, labels)
    fresh.close()
    # The command line says so and fails.
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(tmp_path / "server"))
    assert main(["cache", "import", str(forged)]) == 1
    out = capsys.readouterr().out
    assert f"imported from {forged}: 0 entries; refused 1" in out
    assert f"{key[:12]} (image-clusters): " in out


@pytest.mark.parametrize("kind", sorted(STAYS))
def test_no_artefact_the_privacy_proof_relies_on_and_no_audit_verdict_is_imported(tmp_path, kind):
    payload = _audit_payload(3) if kind == "audit" else _clusters_payload()
    identity = _identity(kind, payload)
    key = hashlib.sha256(identity.encode()).hexdigest()
    body = json.dumps(_verdict(0.0)).encode() if kind == "audit" else _npz(votes=np.zeros(3))
    path = tmp_path / "archive.zip"
    _write_archive(path, [(key, "json" if kind == "audit" else "arrays", body, identity)])
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert report.moved == 0 and report.refused == [f"{key[:12]} ({kind}): {STAYS[kind]}"]
    assert len(fresh) == 0
    fresh.close()


def test_a_forged_audit_verdict_is_refused_and_the_audit_page_finds_no_case(tmp_path):
    # The negative control of rr (a broken mechanism), forged to say "consistent with its claim".
    payload = _audit_payload(3)
    identity = _identity("audit", payload)
    key = hashlib.sha256(identity.encode()).hexdigest()
    path = tmp_path / "audit.zip"
    _write_archive(path, [(key, "json", json.dumps(_verdict(0.0)).encode(), identity)])
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert report.refused[0].startswith(f"{key[:12]} (audit): ")
    assert "audit" in STAYS and "make warm" in STAYS["audit"]
    assert stored_audit_case("rr", 1.0, 3, 200_000, 0, cache=fresh, compute=False) is None
    fresh.close()


def _mismatched(store):
    """The forged clusters under the clusters' key, wearing a timing's identity."""
    clusters = _identity("image-clusters", _clusters_payload())
    timing = store.key("timing", {"mechanism": "rr"}, result_unit("rr")).identity
    return hashlib.sha256(clusters.encode()).hexdigest(), "arrays", _npz(ids=np.zeros(3)), timing


def _without_identity(store):
    key = store.key("timing", {"mechanism": "rr"}, result_unit("rr"))
    return key, "json", b'{"seconds": [1.0]}', None


def _other_code(store):
    identity = _identity("timing", {"mechanism": "rr"}, code="0" * 16)
    return hashlib.sha256(identity.encode()).hexdigest(), "json", b'{"seconds": [1]}', identity


def _unknown_kind(store):
    key = store.key("arrays", {"i": 1})
    return key, "arrays", _npz(x=np.zeros(2)), key.identity


def _wrong_type(store):
    key = store.key("timing", {"mechanism": "rr"}, result_unit("rr"))
    return key, "arrays", _npz(seconds=np.ones(2)), key.identity


def _text_for_number(store):
    key = store.key("baseline", {"seed": 0})
    return key, "json", b'{"score": "0.99", "curve": [0.5]}', key.identity


def _non_result_as_result(store):
    key = result_key(store, make_config("rr", "digits", 1.0, epochs=1, settings=FAST))
    return key, "json", b'{"seconds": [1.0]}', key.identity


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (_mismatched, "its identity does not hash to its key"),
        (_without_identity, "it has no identity"),
        (_other_code, "its identity names other code"),
        (_unknown_kind, "(arrays): not a kind that travels"),
        (_wrong_type, "(timing): stored as arrays, a timing is JSON"),
        (_text_for_number, "(baseline): its score is not a number"),
        (_non_result_as_result, "(result): not a valid result"),
    ],
    ids=[
        "identity of another key",
        "no identity",
        "other code",
        "unknown kind",
        "wrong type",
        "text for a number",
        "not a result",
    ],
)
def test_an_entry_whose_identity_or_shape_does_not_fit_its_key_is_refused(tmp_path, entry, reason):
    store = ResultCache(tmp_path / "maker")
    key, kind, body, identity = entry(store)
    path = tmp_path / "archive.zip"
    _write_archive(path, [(key, kind, body, identity)])
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert report.moved == 0 and len(report.refused) == 1
    assert report.refused[0].startswith(key[:12]) and reason in report.refused[0]
    assert len(fresh) == 0
    fresh.close()
    store.close()


def test_an_exported_cache_moves_what_may_travel_and_a_run_after_import_reads_it(warmed, tmp_path):
    store, configs, results = warmed
    path = tmp_path / "warm.zip"
    exported = export_cache(store, path)
    travelling = _travelling(store)
    assert {_kinds(store)[key] for key in travelling} == {
        "result",
        "baseline",
        "timing",
        SET_SIZES_KIND,
    }
    assert exported.moved == len(travelling) and not exported.refused
    assert exported.left_out == {"image-clusters": 1, "audit": 1, "without an identity": 1}
    assert "left out 3 (audit 1, image-clusters 1, without an identity 1)" in exported.summary("x")
    fresh = ResultCache(tmp_path / "fresh")
    imported = import_cache(fresh, path)
    assert (imported.moved, imported.refused) == (len(travelling), [])
    assert sorted(fresh.stored_keys()) == sorted(travelling)
    for key in fresh.stored_keys():  # every entry knows what it is
        assert hashlib.sha256(fresh.entry(key)[2].encode()).hexdigest() == key
    for config, result in zip(configs, results, strict=True):
        again = run(config, fresh)
        assert again.cached and again.test_accuracy == result.test_accuracy
    sizes = load_set_sizes(results[-1], fresh)  # the artefact the rr-prior result names came too
    assert np.array_equal(sizes["set_sizes"], load_set_sizes(results[-1], store)["set_sizes"])
    assert fresh.key("image-clusters", _clusters_payload()) not in fresh
    fresh.close()


def _edited_copy(tmp_path: Path, edit: str) -> Path:
    """A copy of the package's source with a line of code appended to the file ``edit``."""
    root = tmp_path / "upgraded" / "labeldp_core"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    with (root / edit).open("a") as source:
        source.write("ONE_LINE_MORE = 1\n")  # code: a comment is no edit of the code
    return root


def test_an_archive_from_before_a_one_family_edit_brings_every_other_familys_points(
    warmed, tmp_path, monkeypatch, capsys
):
    store, configs, results = warmed
    path = tmp_path / "warm.zip"
    export_cache(store, path)
    stale = [key for key in _travelling(store) if "family:rr_prior@" in store.entry(key)[2]]
    assert stale  # rr-prior's result and its k* per example
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", _edited_copy(tmp_path, RR_PRIOR_EDIT))
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(tmp_path / "fresh"))
    assert main(["cache", "import", str(path)]) == 0
    out = capsys.readouterr().out
    moved = len(_travelling(store)) - len(stale)
    assert out.startswith(f"imported from {path}: {moved} entries; left out {len(stale)} ")
    assert "computed by other code (stale here" in out and "refused" not in out
    fresh = ResultCache(tmp_path / "fresh")
    assert not set(stale) & set(fresh.stored_keys())
    for config, result in zip(configs[:2], results[:2], strict=True):  # rr: readable here
        again = run(config, fresh)
        assert again.cached and again.test_accuracy == result.test_accuracy
    fresh.close()


def test_every_kind_the_code_stores_either_travels_or_stays():
    kinds = {SET_SIZES_KIND}
    for path in PACKAGE.rglob("*.py"):
        kinds |= set(
            re.findall(r'(?:\.key|\.key_under|_or_compute)\(\s*"([a-z-]+)"', path.read_text())
        )
    assert kinds == set(TRAVELS) | set(STAYS)
    assert not set(TRAVELS) & set(STAYS)


def _manifest(members) -> dict:
    return json.loads(members["manifest.json"])


def _swap_results(members):
    # Two results swapped between their keys: each is valid, but under another point's name.
    first, second = [n for n, body in members.items() if b'"epsilon_spent"' in body][:2]
    members[first], members[second] = members[second], members[first]


def _accuracy_as_text(members):
    name = next(n for n, body in members.items() if b'"epsilon_spent"' in body)
    value = json.loads(members[name]) | {"test_accuracy": "0.99"}
    members[name] = json.dumps(value).encode()


def _pickled_array(members):
    name = next(n for n in members if n.endswith(".npz"))
    buffer = io.BytesIO()
    np.savez(buffer, x=np.array([{"a": 1}], dtype=object))
    members[name] = buffer.getvalue()


@pytest.mark.parametrize(
    ("change", "refused", "reason"),
    [
        (_swap_results, 2, "under another point's key"),
        (_accuracy_as_text, 1, "not a valid result: a stored result's test_accuracy"),
        (_pickled_array, 1, "unreadable"),
    ],
    ids=["swapped results", "wrong type", "pickled array"],
)
def test_entries_that_fail_their_checks_are_refused_by_name(
    warmed, tmp_path, change, refused, reason
):
    store = warmed[0]
    path = tmp_path / "warm.zip"
    exported = export_cache(store, path)
    _rewrite(path, change)
    fresh = ResultCache(tmp_path / "fresh")
    report = import_cache(fresh, path)
    assert len(report.refused) == refused and reason in report.refused[0]
    assert report.moved == exported.moved - refused
    assert len(fresh) == report.moved
    fresh.close()


def _first_format(members):
    members["manifest.json"] = json.dumps(_manifest(members) | {"format": "labeldp-cache/1"})


def _not_json(members):
    members["manifest.json"] = b"{"


def _too_many(members):
    members["manifest.json"] = json.dumps(
        _manifest(members) | {"entries": [{}] * (cache_transfer.MAX_ENTRIES + 1)}
    ).encode()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_first_format, "not a labeldp-cache/2 archive"),
        (_not_json, "is not JSON"),
        (_too_many, "more than"),
    ],
    ids=["first format", "manifest not JSON", "too many entries"],
)
def test_a_broken_archive_is_refused_whole(warmed, tmp_path, change, message):
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
    moving = len(_travelling(store))
    path = tmp_path / "warm.zip"
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(store.directory))
    assert main(["cache", "export", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"exported to {path}: {moving} entries; left out 3 (audit 1, image-clusters 1" in out
    assert "recomputed where they are used" in out
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(tmp_path / "fresh"))
    assert main(["cache", "import", str(path)]) == 0
    assert f"imported from {path}: {moving} entries" in capsys.readouterr().out
    assert main(["cache", "import", str(tmp_path / "missing.zip")]) == 2
    assert "is not a cache archive" in capsys.readouterr().err
