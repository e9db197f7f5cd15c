"""Helpers for AppTest-based page tests: open a page the way a link opens it, check for errors."""

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from streamlit.testing.v1 import AppTest

from tests.isolation import isolate

if TYPE_CHECKING:
    from labeldp_core.services.warm import WarmStatus

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 300  # generous: the machines are shared; this is not a speed check


def app_with(**query: str) -> AppTest:
    """The app with URL query parameters set, not yet run."""
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        app.query_params[key] = value
    return app


def open_page(page: str, **query: str) -> AppTest:
    """Open ``page`` (a path like ``pages/x.py``) as a browser opens a link to it.

    One run of app.py (the navigation and the sidebar) drawing that page, as the server runs
    it for an address ``/x?query``: the home page is not drawn first. (Drawing it first cost
    each test a home page, whose warm panel plans every demo point: about 0.3 s of CPU.)
    """
    app = app_with(**query)
    app.switch_page(page)
    app.run()
    return app


def compute_points_at_once(patch: pytest.MonkeyPatch) -> None:
    """A page computes a timed point without a click only if it is on the demo grid and quick,
    which depends on this machine's speed; tests decide instead: always (except in
    tests/app/test_compute_policy.py, which checks the policy itself).
    """
    from labeldp_core.experiments import road

    patch.setattr(road, "QUICK_S", float("inf"))
    patch.setattr(road, "on_demo_grid", lambda config: True)


def empty_streamlit_caches() -> None:
    """Empty the process-wide caches AppTest runs share: Streamlit's and the parsed uploads."""
    import streamlit as st

    from ui import table_reading

    st.cache_data.clear()
    st.cache_resource.clear()
    table_reading.forget_parsed()


def opened_once(directory: Path, page: str | None, **query: str) -> AppTest:
    """``page`` opened as :func:`open_page` opens it in a test, for a module's tests to share.

    For a module-scoped fixture, whose run comes before any test's own fixtures: the run sees
    what ``tests/conftest.py`` and ``tests/app/conftest.py`` give each test (an empty result
    cache of its own in ``directory``, no downloads, no worker processes, points computed at
    once, Streamlit's caches emptied), all of it restored once the run is over. Tests that each
    read a different part of the same run (and move no widget) then pay for one run, not one
    each. ``page`` None opens the home page (app.py's own run, as :func:`app_with` runs it).
    """
    from labeldp_core.cache import ResultCache

    main = sys.modules["__main__"]
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, directory)
        compute_points_at_once(patch)
        empty_streamlit_caches()
        store = ResultCache(directory)
        try:
            return open_page(page, **query) if page else app_with(**query).run()
        finally:
            store.close()
            sys.modules["__main__"] = main


def assert_no_errors(app: AppTest) -> None:
    """No exception and no ``st.error`` on the page."""
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]


def page_files() -> list[str]:
    """The page files of the app's navigation (:func:`ui.navigation.page_table`), in its order."""
    from ui.navigation import page_table

    return [entry.file for entry in page_table()]


def chart_spec(app: AppTest, key: str) -> dict:
    """The plotly figure (JSON) drawn under chart key ``key``, typed arrays decoded to lists."""
    import json

    for element in app.get("plotly_chart"):
        if element.proto.id.endswith(f"-{key}"):
            return _decoded(json.loads(element.proto.spec))
    raise AssertionError(f"no chart with key {key!r} on the page")


def _decoded(value):
    """Plotly's base64 typed arrays ({"dtype", "bdata"}) as lists, everything else as is."""
    import base64

    import numpy as np

    if isinstance(value, dict) and set(value) >= {"dtype", "bdata"}:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if isinstance(shape, str):  # Plotly writes a 2-D array's shape as "rows, columns"
            shape = tuple(int(part) for part in shape.split(","))
        return array.reshape(shape).tolist() if shape is not None else array.tolist()
    if isinstance(value, dict):
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def write_warm_status(cache_dir: Path, status: "WarmStatus", pid: int | None = None) -> None:
    """``status`` as a warm's status file in ``cache_dir``, written just now by ``pid`` (this
    process by default: a running warm, :meth:`WarmStatus.running`)."""
    from labeldp_core.services.warm import status_path

    cache_dir.mkdir(parents=True, exist_ok=True)
    status.pid, status.updated = os.getpid() if pid is None else pid, time.time()
    status_path(cache_dir, status.dataset).write_text(json.dumps(vars(status)))
