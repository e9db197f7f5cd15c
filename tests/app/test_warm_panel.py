"""The home page says whether the cache is ready for a class, follows a running warm, starts one."""

from pathlib import Path

import pytest
from app_helpers import app_with, assert_no_errors, write_warm_status

from labeldp_core.experiments import MECHANISMS
from labeldp_core.services import warm
from ui.warm_panel import LINES_READY, LINES_READY_UNTIL_PAGES


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
    assert note.startswith("0 of ") and f"first views ready: 0/{pages}." in note
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
    status = warm.WarmStatus(
        "digits",
        total=10,
        done=4,
        seconds_left=300.0,
        pages={"rr": [4, 4], "audit": [0, 6]},
        phases={warm.PAGES: [4, 8], warm.MODEL_AUDITS: [0, 2]},
        pages_seconds_left=80.0,
    )
    write_warm_status(isolated_cache, status)
    app = _home(monkeypatch, [])
    (bar,) = app.get("progress")
    assert bar.proto.text == (
        "Warming digits: 4 of 10 points done; about 5 min left (the pages' points: about 80 s); "
        "first views ready: 1/2"
    )
    assert any("Warming digits: 40% done, about 5 min left" in c.value for c in app.sidebar.caption)
    assert LINES_READY not in [s.value for s in app.success]  # the audit page's view is not ready


def test_a_class_is_told_it_can_start_once_every_first_view_is_ready(
    monkeypatch, isolated_cache: Path
):
    status = warm.WarmStatus("digits", total=10, done=6, seconds_left=300.0)
    status.pages = {"rr": [4, 4], "audit": [2, 2]}
    status.phases = {warm.PAGES: [6, 8], warm.MODEL_AUDITS: [0, 2]}
    write_warm_status(isolated_cache, status)
    app = _home(monkeypatch, [])
    assert [s.value for s in app.success] == [LINES_READY]


def test_a_warm_until_the_pages_does_not_promise_the_bands_and_audits_it_leaves(
    monkeypatch, isolated_cache: Path
):
    # `warm --until-pages` stops after the slider's stops: the box must not say it goes on.
    status = warm.WarmStatus("digits", total=6, done=6, seconds_left=0.0, later_bands=4, later=2)
    status.pages = {"rr": [4, 4], "audit": [2, 2]}
    status.phases = {warm.PAGES: [6, 6]}
    write_warm_status(isolated_cache, status)
    app = _home(monkeypatch, [])
    assert [s.value for s in app.success] == [LINES_READY_UNTIL_PAGES]
    assert "seeds 1 and 2" in LINES_READY_UNTIL_PAGES and "--until-pages" in LINES_READY_UNTIL_PAGES


def test_the_time_a_warm_would_take_is_said_in_the_words_of_a_running_one(
    monkeypatch, isolated_cache: Path
):
    measured = warm.WarmStatus("digits", total=3, done=1, seconds_left=1500.0)
    measured.pages, measured.later = {"rr": [1, 2]}, 0
    measured.phases, measured.pages_seconds_left = (
        {warm.PAGES: [1, 2], warm.MODEL_AUDITS: [0, 1]},
        80.0,
    )
    monkeypatch.setattr("ui.warm_panel.coverage", lambda dataset, cache_dir: measured)
    app = _home(monkeypatch, [])
    (note,) = [i.value for i in app.info if "demo points for digits are cached" in i.value]
    assert note.endswith(
        "A warm computes the other 2 on every core: about 25 min left (the pages' points: "
        "about 80 s); first views ready: 0/1."
    )
