"""The comparison and "what epsilon means" pages compute what they miss and show it."""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core import plots
from labeldp_core.mechanisms import keep_probability


def test_guess_bound_is_rr_keep_probability_for_a_uniform_prior():
    # Randomized response meets the uniform-prior bound exactly: it is the optimal mechanism.
    for epsilon in (0.1, 1.0, 5.0):
        assert plots.guess_bound(epsilon, 0.1) == pytest.approx(keep_probability(epsilon, 10))
    # A stronger prior belief can only go up, and never to certainty.
    assert plots.guess_bound(1.0, 0.9) > plots.guess_bound(1.0, 0.5) > 0.5
    assert plots.guess_bound(20.0, 0.5) < 1.0


def test_epsilon_page_trains_the_attacked_models_and_draws_the_bars():
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon="2.0")
    assert_no_errors(app)
    app.button(key="compute_attacks").click().run()
    assert_no_errors(app)
    bars = app.get("plotly_chart")
    assert len(bars) == 2
    assert not [b for b in app.button if b.key == "compute_attacks"]


def test_compare_page_lists_missing_points_and_fills_them():
    app = open_page("pages/compare.py", epochs="1", mechanisms=["rr", "laplace"])
    assert_no_errors(app)
    button = app.button(key="compute_missing")
    assert "42 missing points" in button.label  # 2 mechanisms x 7 epsilons x 3 seeds
    button.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "compute_missing"]
    table = app.dataframe[0].value
    assert len(table) == 14 and set(table["seeds"]) == {3}
