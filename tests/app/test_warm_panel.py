"""The home page says whether the cache is ready for a class, follows a running warm, starts one."""

import json
import os
import time
from pathlib import Path

import pytest
from app_helpers import app_with, assert_no_errors

from labeldp_core import warm
from labeldp_core.experiments import MECHANISMS


def _home(monkeypatch: pytest.MonkeyPatch, started: list) -> object:
    monkeypatch.setattr(warm, "start_warm", lambda dataset, cache_dir: started.append(dataset))
    monkeypatch.setattr("ui.warm_panel.start_warm", warm.start_warm)
    app = app_with()
    app.run()
    assert_no_errors(app)
    return app


def test_an_empty_cache_says_what_is_missing_and_a_click_starts_a_warm(monkeypatch):
    started: list = []
    app = _home(monkeypatch, started)
    (note,) = [i.value for i in app.info if "demo points for digits are cached" in i.value]
    pages = len(MECHANISMS) + 1  # and the audit page
    assert note.startswith("0 of ") and f"0 of {pages} pages' first views are ready" in note
    app.button(key="start_warm").click().run()
    assert started == ["digits"]


def test_a_read_only_server_offers_no_warm(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    app = _home(monkeypatch, [])
    assert not [b for b in app.button if b.key == "start_warm"]
    assert any("read-only" in c.value for c in app.caption)


def test_a_running_warm_is_followed_on_the_home_page_and_in_the_sidebar(
    monkeypatch, isolated_cache: Path
):
    isolated_cache.mkdir(parents=True, exist_ok=True)
    status = warm.WarmStatus(
        "digits", total=10, done=4, seconds_left=300.0, pages={"rr": [4, 4], "audit": [0, 6]}
    )
    status.updated = time.time()
    warm.status_path(isolated_cache, "digits").write_text(
        json.dumps(vars(status) | {"pid": os.getpid()})
    )
    app = _home(monkeypatch, [])
    (bar,) = app.get("progress")
    assert "4 of 10 points, 6 left, about 5 min left; 1 of 2 pages' first views" in bar.proto.text
    assert any("Warming digits: 40% done, about 5 min left" in c.value for c in app.sidebar.caption)
