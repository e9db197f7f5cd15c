"""``cache stats`` and ``cache prune --stale``: per family, what this code reads, what is stale."""

import json

import pytest

from labeldp_core.__main__ import main
from labeldp_core.cache import CacheKey, ResultCache, fingerprint
from labeldp_core.experiments import make_config
from labeldp_core.experiments.runner import result_key


def _stale_key(cache: ResultCache, kind: str, payload: dict, unit: str) -> CacheKey:
    """A key as code of ``unit`` with another fingerprint made it (an edit since)."""
    fields = json.loads(cache.key(kind, payload, unit).identity)
    fields["code"] = f"{unit}@{'0' * 16}"
    return CacheKey(json.dumps(fields, sort_keys=True, separators=(",", ":")))


def test_stats_count_per_family_and_prune_removes_only_the_stale(
    cache: ResultCache, capsys: pytest.CaptureFixture
):
    cache.put_json(result_key(cache, make_config("rr", "digits", 1.0)), {"mechanism": "rr"})
    cache.put_json(cache.key("baseline", {"seed": 0}, "labeldp_core.engine.context"), {"s": 1})
    pate = make_config("pate", "digits", 1.0).to_dict()
    stale = _stale_key(cache, "result", pate, fingerprint.family_unit("pate"))
    cache.put_json(stale, {"mechanism": "pate"})
    cache.put_json("f" * 64, {"bare": True})  # no identity: counted apart, kept

    assert main(["cache", "stats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines[:-1]}
    assert rows["randomized_response"] == ["1", "0"]
    assert rows["pate"] == ["0", "1"]
    assert rows["shared"] == ["1", "0"]
    assert lines[-1] == (
        "in all: 2 readable by this code, 1 stale (`cache prune --stale` removes them); "
        "1 without an identity, kept"
    )

    assert main(["cache", "prune", "--stale"]) == 0
    assert capsys.readouterr().out.startswith("removed 1 stale entries (computed by other code)\n")
    assert stale not in cache
    assert len(cache) == 3  # the readable two and the one without an identity
