"""The demo tour (ui/demo.py): every stop a page, lean demo links, Back/Next, demo mode off."""

from pathlib import Path

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.experiments.demo import CLASS_EPSILONS, point_epsilons
from ui.demo import TOUR

ROOT = Path(__file__).resolve().parents[2]
RR_PAGE = "pages/randomized_response.py"

#: The tour's controls, stops and links, not what the models learnt: one epoch on 64 examples.
pytestmark = pytest.mark.usefixtures("instant_training")


def test_every_stop_of_the_tour_is_a_page_of_the_app_and_says_one_sentence():
    for stop in TOUR:
        assert (ROOT / stop.page).exists(), stop.page
        assert stop.sentence.count(". ") == 0 and stop.sentence.endswith(".")


def test_a_demo_link_opens_the_lean_page_with_its_stop_and_epsilon_on_the_grid():
    app = open_page(RR_PAGE, demo="1", epsilon="1.02", epochs="1")
    assert_no_errors(app)
    assert app.toggle(key="demo_toggle").value is True
    assert not [w for w in app.sidebar.number_input if w.key == "seed"]
    assert [w.key for w in app.sidebar.selectbox] == ["dataset"]
    stop = next(m.value for m in app.markdown if m.value.startswith("**Demo, stop"))
    assert stop.startswith(f"**Demo, stop 2 of {len(TOUR)}.**") and TOUR[1].sentence in stop
    slider = app.select_slider(key="epsilon_slider")
    assert list(slider.options) == [f"{e:g}" for e in point_epsilons("rr", "digits")]
    assert {f"{e:g}" for e in CLASS_EPSILONS} < set(slider.options)  # the class's dense stops
    assert slider.value == 1.0  # 1.02 snapped to the nearest computed epsilon
    assert not [w for w in app.number_input if w.key == "epsilon"]
    assert app.query_params["demo"] == "1" and app.query_params["epsilon"] == "1"


def test_the_tour_offers_back_and_next_and_turning_demo_mode_off_restores_the_controls():
    # Back and Next switch pages, which AppTest does not follow: tests/app/test_browser.py
    # clicks them.
    app = open_page(RR_PAGE, demo="1", epochs="1")
    assert [app.button(key=k).label for k in ("tour_back", "tour_next")] == ["← Back", "Next →"]
    app.toggle(key="demo_toggle").set_value(False).run()
    assert_no_errors(app)
    assert "demo" not in app.query_params
    assert [w for w in app.sidebar.number_input if w.key == "seed"]
    assert [w for w in app.number_input if w.key == "epsilon"]
    assert not any(m.value.startswith("**Demo, stop") for m in app.markdown)
