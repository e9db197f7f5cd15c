import math

import pytest

from labeldp_core.errors import InvalidInputError
from labeldp_core.risk import (
    FORMULAS,
    guess_bound,
    inference_gain_bound,
    odds_multiplier,
    risk_of,
)

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
    assert "example-level ε = 1 is ε = 2 for a label" in risk.line()
    assert "each up to δ = 3.7e-05" in risk.line()


def test_the_line_and_the_sentence_say_the_numbers():
    line = risk_of(1.0, 10).line()
    assert "at most 2.7x" in line and "23.2%" in line and "(blind: 10.0%)" in line
    assert "63.2%" in line
    assert risk_of(0.5, 10).strength().startswith("Small ε is strong protection")
    assert risk_of(2.0, 10).strength().startswith("A moderate ε")
    assert "22,026x" in risk_of(10.0, 10).strength() and risk_of(10.0, 10).odds_text == "22,026x"
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
