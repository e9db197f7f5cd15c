"""The epsilon control: one value across pages, slider, number box and link (ui/epsilon.py)."""

import itertools
import re

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.experiments import road
from ui.epsilon import EPSILON_GRID


def _shown(app) -> tuple[float, float, str]:
    return (
        app.select_slider(key="epsilon_slider").value,
        app.number_input(key="epsilon").value,
        app.query_params["epsilon"],
    )


def test_one_epsilon_follows_the_user_across_pages_and_into_the_link():
    app = open_page("pages/laplace_noise.py", epsilon="4")
    assert _shown(app) == (4.0, 4.0, "4")
    app.switch_page("pages/audit.py").run()  # a page with another default (the audit's claim)
    assert_no_errors(app)
    assert _shown(app) == (4.0, 4.0, "4")
    app.number_input(key="epsilon").set_value(1.37).run()
    assert _shown(app) == (1.37, 1.37, "1.37")  # the slider shows the exact value, not 1.3
    app.switch_page("pages/laplace_noise.py").run()
    assert _shown(app) == (1.37, 1.37, "1.37")
    app.select_slider(key="epsilon_slider").set_value(0.5).run()
    assert _shown(app) == (0.5, 0.5, "0.5")
    assert 1.37 not in app.select_slider(key="epsilon_slider").options  # only the value shown


def test_the_control_sits_in_the_page_under_the_title_not_in_the_sidebar():
    app = open_page("pages/laplace_noise.py")
    assert not [w for w in app.sidebar.number_input if w.key == "epsilon"]
    assert [w.key for w in app.main.number_input][:1] == ["epsilon"]
    assert _shown(app) == (1.0, 1.0, "1")


def test_the_slider_grid_is_log_spaced_from_0_05_to_20():
    assert EPSILON_GRID[0] == 0.05 and EPSILON_GRID[-1] == 20.0
    ratios = [b / a for a, b in itertools.pairwise(EPSILON_GRID)]
    assert max(ratios) < 1.25  # no gap wider than a step of the 40-point grid (x 1.17)


# Issue 36: a slider that always answers; the snapping choice kept across pages and in the link.

RR_PAGE = "pages/randomized_response.py"
FAST = {"dataset": "digits", "epochs": "1"}
#: A partly warmed cache: rr's point computed at these epsilons only.
WARMED = (0.1, 0.5, 1.0, 2.0, 8.0)


def _warm_rr(cache, epsilons=WARMED) -> None:
    from labeldp_core.experiments import make_config, run

    for epsilon in epsilons:
        run(make_config("rr", "digits", epsilon, 0, 1, {"model": "logistic"}), cache)


@pytest.fixture
def buttons_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing point waits for its button (the policy a slow point follows on a real server)."""
    monkeypatch.setattr(road, "computes_at_once", lambda configs, seconds: False)


@pytest.mark.usefixtures("instant_training", "buttons_only")
def test_dragging_across_the_whole_slider_never_shows_a_compute_button(cache):
    _warm_rr(cache)
    app = open_page(RR_PAGE, model="logistic", **FAST)
    assert_no_errors(app)
    slider = app.select_slider(key="epsilon_slider")
    assert [float(o) for o in slider.options] == list(WARMED)  # the computed stops only
    for option in WARMED:
        app.select_slider(key="epsilon_slider").set_value(option).run()
        assert_no_errors(app)
        assert not [b for b in app.button if b.key == "compute_point"], option


@pytest.mark.usefixtures("instant_training", "buttons_only")
def test_a_slider_with_one_computed_point_keeps_the_whole_grid_so_it_can_move(cache):
    from labeldp_core.experiments.demo import point_epsilons

    _warm_rr(cache, (1.0,))
    app = open_page(RR_PAGE, model="logistic", **FAST)
    options = [float(o) for o in app.select_slider(key="epsilon_slider").options]
    assert options == list(point_epsilons("rr", "digits"))


def _options(app) -> list[float]:
    return [float(o) for o in app.select_slider(key="epsilon_slider").options]


@pytest.mark.usefixtures("instant_training", "buttons_only")
def test_the_stops_follow_the_pages_own_settings_not_the_defaults(cache):
    # rr's points with the default (float) noise at WARMED, with secure noise at two others:
    # the page set to secure noise stops at its own two, each of which answers at once.
    from labeldp_core.experiments import make_config, run

    _warm_rr(cache)
    secure = (0.25, 4.0)
    for epsilon in secure:
        settings = {"model": "logistic", "noise": "secure"}
        run(make_config("rr", "digits", epsilon, 0, 1, settings), cache)
    app = open_page(RR_PAGE, model="logistic", noise="secure", **FAST)
    assert _options(app) == list(secure)
    for option in secure:
        app.select_slider(key="epsilon_slider").set_value(option).run()
        assert_no_errors(app)
        assert not [b for b in app.button if b.key == "compute_point"], option
    app.sidebar.selectbox(key="noise").set_value("float").run()
    assert _options(app) == list(WARMED)


@pytest.mark.usefixtures("instant_training", "buttons_only")
def test_the_stops_follow_settings_drawn_below_the_control(cache):
    # DP-SGD's clipping norm is chosen in the page, under the ε control and its chart.
    from labeldp_core.experiments import make_config, run

    clipped = (1.0, 4.0)
    for epsilon in clipped:
        run(
            make_config("dpsgd", "digits", epsilon, 0, 1, {"model": "logistic", "clip": 0.5}), cache
        )
    app = open_page("pages/dpsgd.py", model="logistic", clip="0.5", **FAST)
    assert_no_errors(app)
    assert _options(app) == list(clipped)
    assert not [b for b in app.button if b.key == "compute_point"]


@pytest.mark.usefixtures("instant_training", "buttons_only")
def test_a_typed_value_off_the_grid_shows_an_estimate_and_its_button_under_the_control(cache):
    _warm_rr(cache)
    app = open_page(RR_PAGE, model="logistic", **FAST)
    app.number_input(key="epsilon").set_value(1.37).run()
    assert_no_errors(app)
    assert app.select_slider(key="epsilon_slider").value == 1.37  # the exact value, kept
    button = app.button(key="compute_point")
    assert button.label.startswith("Compute ε = 1.37 on digits (1 missing point, ")
    captions = [c.value for c in app.caption]
    line = next(c for c in captions if c.startswith("ε = 1.37 is not computed yet"))
    assert "the button computes this page's result at exactly that ε (seed 0, 1 epoch)" in line
    order = [_text(e) for e in _walk(app.main)]
    first = next(i for i, t in enumerate(order) if t.startswith("Each training label is kept"))
    assert order.index(line) < first and order.index(button.label) < first  # in view, on top
    estimate = next(c for c in captions if c.startswith("Estimate, not computed"))
    assert re.search(
        r"≈ 0\.\d{3}, on the line \(log ε\) between ε = 1 \(0\.\d{3}\) and ε = 2 ", estimate
    )
    assert not [c for c in captions if "The cross is" in c]  # no cross is drawn
    assert not [i for i in app.info if "Press the button" in i.value]


@pytest.mark.usefixtures("instant_training")
def test_the_snapping_choice_is_one_setting_kept_across_pages_and_in_the_link():
    app = open_page(RR_PAGE, **FAST)
    assert app.checkbox(key="snap").value is True  # on by default, outside demo mode too
    app.checkbox(key="snap").set_value(False).run()
    assert app.query_params["snap"] == "false"
    for page in ("pages/laplace_noise.py", "pages/pate.py", "pages/dpsgd.py", RR_PAGE):
        app.switch_page(page).run()
        assert_no_errors(app)
        assert app.query_params["snap"] == "false", page
        if page != "pages/laplace_noise.py":  # a closed-form page: no computed grid to snap to
            assert app.checkbox(key="snap").value is False, page
    reopened = open_page(RR_PAGE, snap="false", **FAST)
    assert_no_errors(reopened)
    assert reopened.checkbox(key="snap").value is False


@pytest.mark.usefixtures("instant_training")
def test_snapping_stays_on_page_after_page_in_demo_mode():
    app = open_page(RR_PAGE, demo="1", **FAST)
    for page in ("pages/pate.py", "pages/dpsgd.py", RR_PAGE, "pages/pate.py"):
        app.switch_page(page).run()
        assert_no_errors(app)
        assert app.checkbox(key="snap").value is True, page
        assert app.query_params["snap"] == "true", page


def _walk(node):
    """Every element under ``node``, in page order."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for child in children.values():
        yield from _walk(child)


def _text(element) -> str:
    value = getattr(element, "label", None) or getattr(element, "value", None)
    return value if isinstance(value, str) else ""
