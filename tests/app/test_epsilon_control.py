"""The epsilon control: one value across pages, slider, number box and link (ui/epsilon.py)."""

import itertools

from app_helpers import assert_no_errors, open_page

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
