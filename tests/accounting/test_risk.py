import math

import pytest

from labeldp_core.accounting.risk import (
    FORMULAS,
    Prior,
    guess_bound,
    inference_gain_bound,
    odds_multiplier,
    posterior_bound,
    risk_of,
)
from labeldp_core.errors import InvalidInputError

EPSILONS = [0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 10.0]


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("classes", [2, 10, 100])
def test_each_number_is_its_closed_form(epsilon, classes):
    assert odds_multiplier(epsilon) == pytest.approx(math.e**epsilon, rel=1e-12)
    expected = math.e**epsilon / (math.e**epsilon + classes - 1)
    assert guess_bound(epsilon, classes) == pytest.approx(expected, rel=1e-12)
    assert inference_gain_bound(epsilon) == pytest.approx(1 - math.e ** (-epsilon), rel=1e-12)


def test_the_issues_examples():
    assert f"{odds_multiplier(1):.1f}" == "2.7"
    assert round(odds_multiplier(10)) == 22026
    assert guess_bound(1e-9, 10) == pytest.approx(0.1)  # no better than blind at ε → 0


def test_an_example_level_epsilon_is_read_for_a_label_at_twice_the_epsilon():
    risk = risk_of(1.0, 10, "example", delta=1e-5)
    assert (risk.given_epsilon, risk.epsilon) == (1.0, 2.0)
    assert risk.delta == pytest.approx((1 + math.e) * 1e-5)
    assert risk.guess == guess_bound(2.0, 10) and risk.blind == 0.1
    assert "At example-level ε = 1, which is ε = 2 for one label" in risk.line()
    assert "may fail with probability up to δ = 3.7e-05" in risk.line()


def test_the_line_and_the_sentence_say_the_numbers():
    line = risk_of(1.0, 10).line()
    assert "at most 2.7x" in line and "at most 23.2%" in line and "π = 1/K = 10.0%" in line
    assert "63.2%" not in line  # issue 53: an attack's gain is not a guess; not beside one
    assert risk_of(0.5, 10).line().startswith("At ε = 0.5 (strong privacy for one label")
    assert risk_of(2.0, 10).line().startswith("At ε = 2 (moderate privacy for one label")
    assert "at most 22,026x" in risk_of(10.0, 10).line()
    assert risk_of(10.0, 10).odds_text == "22,026x"
    assert risk_of(1.0, 10).brief() == (  # beside an ε control: the odds, then the blind guess
        "odds moved ≤ 2.7x · image unseen, a guess rises from 10% to ≤ 23%"
    )
    assert risk_of(1.97, 10).line(approximate=True).startswith("At ε ≈ 1.97 (moderate privacy")
    assert risk_of(1.0, 10).odds_text == "2.7x"
    assert set(FORMULAS) == {"odds", "guess", "gain", "example"}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: risk_of(0.0, 10), "greater than 0"),
        (lambda: risk_of(float("nan"), 10), "finite"),
        (lambda: risk_of(1.0, 1), "at least 2"),
        (lambda: risk_of(1.0, 10, "output"), "label or example"),
        (lambda: risk_of(1.0, 10, delta=1.0), r"\[0, 1\)"),
    ],
)
def test_bad_input_is_refused_in_one_sentence(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()


PUBLIC_MODEL = Prior(0.95, "a public model's confidence on the image")


def test_the_bound_in_general_form_is_pi_e_eps_over_pi_e_eps_plus_one_minus_pi():
    for pi in (0.1, 0.5, 0.95):
        expected = pi * math.e / (pi * math.e + 1 - pi)
        assert posterior_bound(1.0, pi) == pytest.approx(expected, rel=1e-12)
    assert posterior_bound(1.0, 0.1) == pytest.approx(guess_bound(1.0, 10), rel=1e-12)


def test_the_line_names_its_prior_and_the_image_prior_gives_98_percent_at_epsilon_one():
    # Issue 49, item 1: under label DP the image is public, so an attacker starts from what a
    # model of the image says; at pi = 0.95 and eps = 1 the bound is 98.1%, not the 23.2% a
    # uniform prior gives. The uniform figure stays, with its prior named beside it.
    line = risk_of(1.0, 10, prior=PUBLIC_MODEL).line()
    assert "π = 95.0% before the release (a public model's confidence on the image)" in line
    assert "at most 98.1%" in line
    assert line.index("98.1%") < line.index("23.2%")
    uniform = line[line.index("23.2%") - 90 : line.index("23.2%")]
    assert "never sees the image starts from π = 1/K = 10.0%" in uniform


def test_without_a_known_prior_the_uniform_figure_says_a_real_attacker_starts_higher():
    line = risk_of(1.0, 10).line()
    assert "never sees the image starts from π = 1/K = 10.0%" in line and "23.2%" in line
    assert "the image is public" in line
