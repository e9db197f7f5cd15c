"""The PATE page shows a run and moves with its levers."""

import pytest
from app_helpers import assert_no_errors, open_page

PAGE = "pages/pate.py"

#: The page's metrics, captions and levers, not what the teachers learnt: each model trains one
#: epoch on 64 examples, and the logistic ones on patch features a few iterations.
pytestmark = pytest.mark.usefixtures("instant_training")


def test_page_shows_the_run_and_moves_with_its_levers():
    app = open_page(
        PAGE, epochs="1", teachers="5", queries="50", teacher_epochs="1", self_training_rounds="0"
    )
    assert_no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ε spent"] == "1"
    assert metrics["Queries answered"] == "50 / 50"
    assert len(app.get("plotly_chart")) == 5
    assert any("smooth sensitivity" in w.value for w in app.warning)

    app.sidebar.selectbox(key="aggregator").set_value("confident-gnmax").run()
    assert_no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    answered = metrics["Queries answered"]
    assert answered != "50 / 50" and answered.endswith("/ 50")
    # The threshold check's noise sigma1 (3 sigma2 by default) and T = 0.7 of 5 teachers.
    sigma1 = float(metrics["Threshold noise σ1 (votes)"])
    assert sigma1 == pytest.approx(3 * float(metrics["Noise σ2 (votes)"]), rel=1e-2)
    assert metrics["Threshold T (votes)"] == "3.5"

    app.sidebar.select_slider(key="queries").set_value(25).run()
    assert_no_errors(app)
    assert {m.label: m.value for m in app.metric}["Queries answered"].endswith("/ 25")


def test_the_page_offers_the_features_and_says_what_they_took_from_the_images():
    app = open_page(
        PAGE,
        epochs="1",
        teachers="5",
        queries="50",
        teacher_epochs="1",
        self_training_rounds="0",
        features="patches",
    )
    if not app.metric:  # not estimated quick enough to compute at once: press the button
        app.button(key="compute_point").click().run()
    assert_no_errors(app)
    assert app.sidebar.selectbox(key="features").value == "patches"
    captions = " ".join(caption.value for caption in app.caption)
    assert "label-free patch features" in captions and "spread over the public part" in captions
    assert "reads images only" in captions  # the privacy statement of the features
    # Teachers and student are logistic regressions on the features: no model, no epochs.
    assert app.sidebar.selectbox(key="teacher_model").disabled
    assert app.sidebar.selectbox(key="teacher_epochs").disabled
    app.sidebar.selectbox(key="features").set_value("pixels").run()
    assert not app.sidebar.selectbox(key="teacher_model").disabled
