"""A page opened while a warm runs draws the seeds stored and offers no button for what the warm
computes (issue 52): the warm computes every line's first seed before the other seeds (the band),
and a click would train the same points a second time beside it. A read-only server (a classroom)
shows no button, and its sentence under the chart names none either.
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.experiments import road
from labeldp_core.services import warm
from ui.sweeps import WARM_COMPUTES


@pytest.fixture
def no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every point not stored stays missing: the page computes nothing without a click."""
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    monkeypatch.setattr(road, "on_demo_grid", lambda config: False)


def _running_warm(cache_dir: Path, pid: int) -> None:
    """A status file of a warm of digits, written just now by the process ``pid``."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    status = warm.WarmStatus("digits", total=10, done=4, pid=pid, updated=time.time())
    warm.status_path(cache_dir, "digits").write_text(json.dumps(vars(status)))


def _sweep_button_and_words(app) -> tuple[bool, str]:
    assert_no_errors(app)
    captions = " ".join(caption.value for caption in app.caption)
    return any(button.key == "run_sweep" for button in app.button), captions


@pytest.mark.usefixtures("cache", "no_computing")
def test_a_running_warm_takes_the_place_of_the_sweep_button(isolated_cache):
    _running_warm(isolated_cache, os.getpid())
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert not button
    assert WARM_COMPUTES in words
    assert "the warm running on this server computes them" in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_without_a_running_warm_the_page_offers_its_button(isolated_cache):
    # A status left by a warm whose process is gone (killed): nobody computes the points.
    gone = subprocess.Popen(["true"])
    gone.wait()
    _running_warm(isolated_cache, gone.pid)
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert button and WARM_COMPUTES not in words
    assert "the button computes and caches each one" in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_points_off_the_demo_grid_keep_their_button_during_a_warm(isolated_cache):
    _running_warm(isolated_cache, os.getpid())
    page = open_page("pages/randomized_response.py", epochs="1")  # the warm trains its epochs
    button, words = _sweep_button_and_words(page)
    assert button and WARM_COMPUTES not in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_a_read_only_server_names_no_button_it_does_not_show(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert not button and "the button computes" not in words
    assert "this read-only server shows only the points computed before class" in words
