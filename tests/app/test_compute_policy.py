"""When a page computes a missing point: at once if quick, else behind a button saying how long."""

import re

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page

from labeldp_core.cache import ResultCache
from labeldp_core.engine.timing import estimate_seconds, record_seconds, spoken_duration
from labeldp_core.experiments import make_config, road
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons

RR_PAGE = "pages/randomized_response.py"


def test_estimates_are_the_median_of_the_settings_runs_at_any_epsilon(cache: ResultCache):
    config = make_config("rr", "digits", 1.0, epochs=1)
    assert estimate_seconds(cache, [config]) is None
    for seconds in (3.0, 1.0, 2.0):
        record_seconds(cache, config, seconds)
    other = make_config("rr", "digits", 4.0, seed=2, epochs=1)
    assert estimate_seconds(cache, [config, other]) == 4.0
    assert estimate_seconds(cache, [make_config("rr", "digits", 1.0, epochs=2)]) is None


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(0.2, "under a second"), (4.26, "about 4.3 s"), (44, "about 40 s"), (600, "about 10 min")],
)
def test_durations_are_spoken(seconds, words):
    assert spoken_duration(seconds) == words


def test_a_slow_sweep_waits_for_a_button_that_says_how_long():
    app = open_page(RR_PAGE, epochs="1")  # the page's point: computed, and timed
    assert_no_errors(app)
    sweep = app.button(key="run_sweep")
    missing = len(demo_epsilons("rr")) * len(DEMO_SEEDS) - 1  # the curve is over the demo seeds
    assert re.fullmatch(
        rf"Run sweep \({missing} missing points, (about .+|under a second)\)", sweep.label
    ), sweep.label


def test_a_slow_point_waits_for_a_button_and_a_quick_one_does_not(monkeypatch):
    app = open_page(RR_PAGE, epochs="1")  # never timed, on a small dataset: computed and timed
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    app.number_input(key="epsilon").set_value(4.0).run()
    button = app.button(key="compute_point")
    assert re.fullmatch(
        r"Compute ε = 4 on digits \(1 missing point, (about .+|under a second)\)", button.label
    ), button.label
    monkeypatch.setattr(road, "QUICK_S", float("inf"))
    app.number_input(key="epsilon").set_value(2.0).run()
    assert not [b for b in app.button if b.key == "compute_point"]
    assert {m.label: m.value for m in app.metric}["ε spent"] == "2"


def test_a_point_never_timed_on_a_large_dataset_waits_for_its_button(monkeypatch):
    monkeypatch.setattr(road, "AUTO_COMPUTE_MAX_IMAGES", 100)
    app = open_page(RR_PAGE, epochs="1")
    assert_no_errors(app)
    button = app.button(key="compute_point")
    assert button.label == (
        "Compute ε = 1 on digits (1 missing point, time unknown: not all have run here yet)"
    )
    # The closed form is drawn at once, without the run's measured cross (one trace fewer).
    waiting = chart_spec(app, "keep_flip_closed_form")
    assert [t["name"].split(":")[0] for t in waiting["data"]] == ["keep", "flip"]
    button.click().run()
    assert len(chart_spec(app, "keep_flip")["data"]) == len(waiting["data"]) + 1
    assert {m.label: m.value for m in app.metric}["ε spent"] == "1"


@pytest.mark.usefixtures("instant_training")  # which points compute, not what they learn
def test_only_demo_grid_points_are_computed_without_a_click(monkeypatch):
    from labeldp_core.experiments.demo import on_demo_grid

    monkeypatch.setattr(road, "on_demo_grid", on_demo_grid)
    app = open_page(RR_PAGE, epsilon="1.2")  # quick, on a small dataset, but off the grid
    assert_no_errors(app)
    button = app.button(key="compute_point")
    assert button.label.startswith("Compute ε = 1.2 on digits (1 missing point")
    app.number_input(key="epsilon").set_value(1.0).run()  # on the grid: computed at once
    assert not [b for b in app.button if b.key == "compute_point"]
    assert {m.label: m.value for m in app.metric}["ε spent"] == "1"


def test_the_demo_grid_is_warm_s_points_and_nothing_else():
    from labeldp_core.experiments.demo import CLASS_EPSILONS, on_demo_grid

    assert on_demo_grid(make_config("rr", "digits", 2.0, seed=2))
    assert on_demo_grid(make_config("rr", "digits", CLASS_EPSILONS[3], seed=0))
    assert not on_demo_grid(make_config("rr", "digits", CLASS_EPSILONS[3], seed=1))
    assert not on_demo_grid(make_config("rr", "digits", 2.0, seed=3))
    assert not on_demo_grid(make_config("rr", "digits", 2.0, epochs=3))
    assert not on_demo_grid(make_config("pate", "digits", 2.0, settings={"teachers": 200}))
