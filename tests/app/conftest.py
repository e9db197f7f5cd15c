"""The app's fixtures: Streamlit's caches emptied per test, pages computing their points at once."""

import functools
import sys
from collections.abc import Iterator

import pytest
from app_helpers import compute_points_at_once, empty_streamlit_caches


@pytest.fixture(autouse=True)
def pages_compute_points_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages compute their points without a click (:func:`compute_points_at_once`)."""
    compute_points_at_once(monkeypatch)


@pytest.fixture(autouse=True, scope="session")
def components_scanned_once() -> Iterator[None]:
    """Streamlit's scan of the installed packages for components, done once per process.

    Each new ``AppTest`` scans every installed distribution's metadata for Streamlit components
    on its first run (``scan_component_manifests``): about 0.2 s of CPU each, paid by the
    hundreds of pages these tests open, with the same answer every time (nothing is installed
    during a run, and the app uses no components). Remembered, the pages run as before.
    """
    from streamlit.components.v2 import manifest_scanner

    with pytest.MonkeyPatch.context() as patch:
        scanned = functools.cache(manifest_scanner.scan_component_manifests)
        patch.setattr(manifest_scanner, "scan_component_manifests", lambda: list(scanned()))
        yield


@pytest.fixture(autouse=True)
def fresh_streamlit_caches() -> None:
    """AppTest runs share the process-wide caches (Streamlit's, the parsed uploads); each test
    starts from empty ones."""
    empty_streamlit_caches()


@pytest.fixture(autouse=True)
def main_module_restored():
    """AppTest runs app.py as ``__main__`` and leaves it there; a process spawned later (a Dask
    worker, a compute-service worker) would then run app.py first. Each test gets it back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture(scope="session")
def layout_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server of the layout tours and of the phone's checks, on each family page's first
    view (``test_browser_layout.warm_first_views``): warmed and started once per process, not
    once for each of the two modules (about 8 s under load)."""
    from test_browser import warmed_app
    from test_browser_layout import warm_first_views

    with warmed_app(tmp_path_factory, warm_first_views) as url:
        yield url
