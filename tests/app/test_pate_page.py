"""The PATE page shows a run and moves with its levers."""

import pytest
from app_helpers import assert_no_errors, open_page

PAGE = "pages/pate.py"


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
