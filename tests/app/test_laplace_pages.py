"""The three Laplace pages through AppTest: they render, react to their controls and compute."""

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page

from labeldp_core.accounting import split_budget
from labeldp_core.experiments import make_config, run
from labeldp_core.noise.secure_noise import guaranteed_epsilon, rational_scale

NOISE_PAGE = "pages/laplace_noise.py"
LABELS_PAGE = "pages/laplace_labels.py"
OUTPUTS_PAGE = "pages/noisy_outputs.py"


def _metrics(app):
    return {m.label: m.value for m in app.metric}


def test_noise_page_follows_sensitivity_epsilon_and_the_calculator():
    app = open_page(NOISE_PAGE)
    assert_no_errors(app)
    assert _metrics(app)["Scale b = Δ/ε"] == "2"
    assert _metrics(app)["ε for this noise level"] == "4.605"  # 2 ln(10) / 1
    app.number_input(key="sensitivity").set_value(9.0).run()
    assert _metrics(app)["Scale b = Δ/ε"] == "9"
    app.number_input(key="epsilon").set_value(3.0).run()
    assert _metrics(app)["Scale b = Δ/ε"] == "3"
    app.number_input(key="probability").set_value(0.5).run()
    assert_no_errors(app)
    assert _metrics(app)["ε for this noise level"] == "6.238"  # 9 ln 2 / 1
    assert any("ε = Δ ln(1/(1 − p)) / t" in m.value for m in app.markdown)


def test_noise_page_link_restores_its_controls():
    app = open_page(NOISE_PAGE, sensitivity="9.0", magnitude="2.0", probability="0.99")
    assert_no_errors(app)
    assert app.number_input(key="sensitivity").value == 9.0
    assert _metrics(app)["ε for this noise level"] == "20.72"  # 9 ln(100) / 2


def test_labels_page_shows_vectors_runs_a_sweep_and_the_budget_split():
    app = open_page(LABELS_PAGE, epochs="1", model="logistic", prior="histogram")
    assert_no_errors(app)
    budget = app.table[0].value
    # The release gets what is left in exact arithmetic (0.1 + 0.9 is above 1 by a hair); the
    # table writes it as a reader does.
    assert split_budget(1.0, 0.1).release_epsilon == pytest.approx(0.9)
    assert list(budget["epsilon"]) == ["0.1", "0.9", "1"]
    sweep = app.button(key="run_regression")
    assert "missing points" in sweep.label
    sweep.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "run_regression"]
    budget = app.table[0].value
    assert budget["step"].iloc[0] == "prior: noisy label histogram"
    assert budget["epsilon"].iloc[-1] == "1"
    assert any("computed run" in c.value for c in app.caption)
    # Argmax labels are K-ary randomized response at ε′ (issue 54): 0.566 at ε = 1 on ten classes.
    assert any("randomized response at ε′ = 0.566, less than ε" in c.value for c in app.caption)


def test_rr_bins_panel_quotes_the_release_epsilon_the_run_had(cache):
    # Secure noise rounds the histogram's scale up to a fraction: the histogram spends less than
    # its share 0.15 * 2 = 0.3 and the RR step gets the rest, a little more than the planned 1.7.
    settings = {"model": "logistic", "prior": "histogram", "prior_share": 0.15, "noise": "secure"}
    result = run(make_config("rr-bins", "digits", 2.0, 0, 1, settings), cache)
    release = 2.0 - guaranteed_epsilon(2, rational_scale(2, 0.3))
    assert f"{release:.6g}" == "1.70001"
    app = open_page(
        LABELS_PAGE,
        epochs="1",
        model="logistic",
        prior="histogram",
        prior_share="0.15",
        noise="secure",
        epsilon="2.0",
    )
    assert_no_errors(app)
    caption = next(c.value for c in app.caption if "RR-on-bins at" in c.value)
    assert "ε_release = 1.70001 (of ε = 2, after the histogram's 0.299985)" in caption
    assert f"m = {result.details['num_bins']} bins" in caption
    assert any("as the computed run spent it" in m.value for m in app.markdown)


def test_outputs_page_computes_on_digits_and_reacts_to_epsilon():
    app = open_page(OUTPUTS_PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    before = _metrics(app)
    assert before["ε spent"] == "1"
    replay = [c.value for c in app.caption if c.value.startswith("**Replayable from its seed:**")]
    assert len(replay) == 1 and "a teaching run, not a release" in replay[0]
    app.number_input(key="epsilon").set_value(16.0).run()
    assert_no_errors(app)
    after = _metrics(app)
    assert after["ε spent"] == "16"
    assert float(after["Argmax agreement"]) > float(before["Argmax agreement"])
    text = " ".join(m.value for m in app.markdown)
    assert "**32, not 16**" in text


def test_each_laplace_variant_has_its_own_colour_whichever_others_are_computed(cache):
    # Only the 'clamp + round' variant is computed, and the page's own point (argmax at ε = 1):
    # each keeps its own shade of Laplace's colour, not the one of its place in the chart.
    from labeldp_core.plots_base.colours import VARIANT_SHADES, shade
    from labeldp_core.registry import MECHANISM_COLOURS

    for epsilon in (0.5, 1.0):
        settings = {"model": "logistic", "post": "round"}
        run(make_config("laplace", "digits", epsilon, 0, 1, settings), cache)
    app = open_page(LABELS_PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    lines = {
        t["name"]: t["line"]["color"]
        for t in chart_spec(app, "accuracy")["data"]
        if t.get("showlegend") is not False
    }
    expected = shade(MECHANISM_COLOURS["laplace"], VARIANT_SHADES["laplace/round"])
    assert lines == {
        "Laplace, argmax": MECHANISM_COLOURS["laplace"],
        "Laplace, clamp + round": expected,
    }
    assert expected != MECHANISM_COLOURS["laplace"]
