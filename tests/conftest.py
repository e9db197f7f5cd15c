"""Every test gets its own empty result cache and no network downloads."""

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache
from labeldp_core.training import loop


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(directory))
    monkeypatch.setenv("LABELDP_OFFLINE", "1")
    return directory


@pytest.fixture
def cache(isolated_cache: Path) -> Iterator[ResultCache]:
    store = ResultCache(isolated_cache)
    yield store
    store.close()


@pytest.fixture(autouse=True)
def fresh_streamlit_caches() -> None:
    """AppTest runs share Streamlit's process-wide caches; each test starts from empty ones."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def instant_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model trains one epoch on 64 examples: this test is about URLs, not accuracy.

    Reopening a page with a changed control recomputes its results; with real training the PATE
    page alone (50 teachers, 200 steps each, for every changed setting) would take minutes.
    """
    original = loop._fit

    def tiny(x_train, targets, outputs, loss_fn, evaluate, settings, seed, progress):
        small = replace(settings, epochs=1)
        return original(
            x_train[:64], targets[:64], outputs, loss_fn, evaluate, small, seed, progress
        )

    monkeypatch.setattr(loop, "_fit", tiny)
