"""The risk of ε (issue 38, section 2): one line by the ε control, in full on 'What ε means'.

The numbers are their formulas at ε = 1 with K = 10 digits classes: odds e^1 = 2.7x, a guess from
the uniform prior 1/K = 10% ends at most at e/(e + 9) = 23.2% (issue 49: the line names that
prior, and the general bound πe^ε/(πe^ε + 1 − π) for an attacker who sees the image); an
example-level ε = 1 is ε = 2 for one label (odds e^2 = 7.4x). Issue 53, section 1: the attack
gain 1 − e^−ε (63.2% at ε = 1) stood beside the guess and was read as a chance of guessing a
label; no screen shows it beside the guess now, and the line's help is Choose ε's risk sentence.
"""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.accounting.risk import risk_of
from ui.risk import RiskOf, risk_help, risk_line

QUERY = {"epochs": "1", "model": "logistic", "epsilon": "1"}
#: The line by the ε control, not what the models learnt: they train one epoch on 64 examples.
pytestmark = pytest.mark.usefixtures("instant_training")


def _risk_captions(app) -> list[str]:
    return [c.value for c in app.caption if c.value.startswith("One ")]


def test_a_mechanism_page_writes_the_risk_of_its_epsilon_by_the_control():
    app = open_page("pages/randomized_response.py", **QUERY)
    assert_no_errors(app)
    # The line names its prior and what an attacker who sees the image gets (the odds); short
    # enough to keep the chart on the first screen (tests/app/test_browser_layout.py).
    assert _risk_captions(app) == [
        "One label at ε = 1: odds moved ≤ 2.7x · image unseen, a guess rises from 10% to ≤ 23%"
    ]
    (caption,) = [c for c in app.caption if c.value.startswith("One ")]
    assert risk_of(1.0, 10).line() in caption.help  # Choose ε's sentence, in full
    assert "gain" not in caption.value + caption.help
    app.number_input(key="epsilon").set_value(0.5).run()
    assert _risk_captions(app)[0].startswith("One label at ε = 0.5: odds moved ≤ 1.6x")


def test_local_dp_on_outputs_gives_the_odds_of_an_output_only():
    app = open_page("pages/noisy_outputs.py", **QUERY)
    assert_no_errors(app)
    assert _risk_captions(app) == ["One model output at ε = 1: the odds of its release move ≤ 2.7x"]


def test_an_example_level_epsilon_is_read_for_one_label_at_twice_it():
    line = risk_line(1.0, RiskOf(10, "example"))
    assert line.startswith("One label at ε = 2 (2 × example ε 1): odds moved ≤ 7.4x")
    assert line.endswith("image unseen, a guess rises from 10% to ≤ 45%")
    assert "gain" not in line
    assert "πe^ε/(πe^ε + 1 − π)" in risk_help(1.0, RiskOf(10, "example"))


def test_demo_mode_keeps_the_line_off_its_larger_type():
    app = open_page("pages/randomized_response.py", demo="1", **QUERY)
    assert_no_errors(app)
    assert _risk_captions(app) == []


def test_what_epsilon_means_gives_every_number_with_its_formula():
    app = open_page("pages/epsilon_meaning.py", **QUERY)
    assert_no_errors(app)
    shown = {m.label: (m.value, m.help) for m in app.metric}
    assert shown["Odds moved by at most"][0] == "2.7x"
    uniform = "Guess of one label, uniform prior (π = 1/10, image unseen)"
    assert shown[uniform][0] == "≤ 23.2%"
    assert shown["Example-level ε, for one label"][0] == "2"
    assert "πe^ε/(πe^ε + 1 − π)" in shown[uniform][1]
    # One risk sentence, Choose ε's, and no attack gain beside the guess (issue 53, section 1)
    assert not any("gain" in m.label.lower() or "63" in m.value for m in app.metric), shown
    captions = [c.value for c in app.caption]
    assert any(risk_of(1.0, 10).line() in c for c in captions), captions
    assert shown["Odds moved by at most"][1] and shown["Example-level ε, for one label"][1]
