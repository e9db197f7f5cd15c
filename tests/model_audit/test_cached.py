"""The model audit read from the cache only: what a read-only server and the price screen show."""

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.errors import InvalidInputError
from labeldp_core.model_audit import audit_model, cached_audit, training_run

FAST = {"epochs": 1, "settings": {"model": "logistic"}}


def test_nothing_cached_gives_none_and_trains_nothing(tmp_path, monkeypatch):
    def no_training(*args):
        raise AssertionError("trained")

    monkeypatch.setattr(training_run, "_train", no_training)
    assert cached_audit("rr", "digits", 1.0, cache=ResultCache(tmp_path), **FAST) is None


def test_a_computed_audit_is_read_back_without_training(tmp_path, monkeypatch):
    cache = ResultCache(tmp_path)
    computed = audit_model("rr", "digits", 1.0, cache=cache, **FAST)

    def no_training(*args):
        raise AssertionError("trained")

    monkeypatch.setattr(training_run, "_train", no_training)
    assert cached_audit("rr", "digits", 1.0, cache=cache, **FAST) == computed
    assert cached_audit("rr", "digits", 2.0, cache=cache, **FAST) is None  # another point


def test_bad_input_is_refused_as_by_the_audit(tmp_path):
    with pytest.raises(InvalidInputError, match="softmax"):
        cached_audit("laplace-regression", "digits", 1.0, cache=ResultCache(tmp_path))
