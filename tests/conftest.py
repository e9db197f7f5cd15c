"""Every test gets its own empty result cache and no network downloads."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from labeldp_core.cache import ResultCache


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
