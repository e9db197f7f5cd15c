"""A page opened while a warm runs draws the seeds stored and offers no button for what the warm
computes (issue 52): the warm computes every line's first seed before the other seeds (the band),
and a click would train the same points a second time beside it. A read-only server (a classroom)
shows no button, and its sentence under the chart names none either.
"""

import subprocess

import pytest
from app_helpers import assert_no_errors, open_page, write_warm_status

from labeldp_core.experiments import road
from labeldp_core.services import warm
from ui.sweeps import WARM_COMPUTES


@pytest.fixture
def no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every point not stored stays missing: the page computes nothing without a click."""
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    monkeypatch.setattr(road, "on_demo_grid", lambda config: False)


def _status() -> warm.WarmStatus:
    return warm.WarmStatus("digits", total=10, done=4)


def _sweep_button_and_words(app) -> tuple[bool, str]:
    assert_no_errors(app)
    captions = " ".join(caption.value for caption in app.caption)
    return any(button.key == "run_sweep" for button in app.button), captions


@pytest.mark.usefixtures("cache", "no_computing")
def test_a_running_warm_takes_the_place_of_the_sweep_button(isolated_cache):
    write_warm_status(isolated_cache, _status())
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert not button
    assert WARM_COMPUTES in words
    assert "the warm running on this server computes them" in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_without_a_running_warm_the_page_offers_its_button(isolated_cache):
    # A status left by a warm whose process is gone (killed): nobody computes the points.
    gone = subprocess.Popen(["true"])
    gone.wait()
    write_warm_status(isolated_cache, _status(), gone.pid)
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert button and WARM_COMPUTES not in words
    assert "the button computes and caches each one" in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_points_off_the_demo_grid_keep_their_button_during_a_warm(isolated_cache):
    write_warm_status(isolated_cache, _status())
    page = open_page("pages/randomized_response.py", epochs="1")  # the warm trains its epochs
    button, words = _sweep_button_and_words(page)
    assert button and WARM_COMPUTES not in words


@pytest.mark.usefixtures("cache", "no_computing")
def test_a_read_only_server_names_no_button_it_does_not_show(monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    button, words = _sweep_button_and_words(open_page("pages/randomized_response.py"))
    assert not button and "the button computes" not in words
    assert "this read-only server shows only the points computed before class" in words
