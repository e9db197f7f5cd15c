"""The secure noise mode on the pages: the Laplace noise page explains it, two pages select it."""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.plots import discrete_laplace_figure

#: The noise each page selects and says, and the ε it spends, not what the models learnt: they
#: train one epoch on 64 examples.
pytestmark = pytest.mark.usefixtures("instant_training")


def _metrics(app):
    return {m.label: m.value for m in app.metric}


def test_noise_page_shows_the_exact_scale_and_the_epsilon_it_guarantees():
    app = open_page("pages/laplace_noise.py")
    assert_no_errors(app)
    assert _metrics(app)["Exact scale b"] == "2"
    assert _metrics(app)["ε guaranteed = Δ/b"] == "1"
    assert any("Mironov 2012" in m.value for m in app.markdown)
    app.number_input(key="epsilon").set_value(0.3).run()
    assert_no_errors(app)
    assert _metrics(app)["Exact scale b"] == "6667/1000"  # 2/0.3 rounded up
    assert _metrics(app)["ε guaranteed = Δ/b"] == "0.299985"


def test_discrete_figure_bins_wide_noise_and_marks_the_pmf_of_narrow_noise():
    narrow = discrete_laplace_figure(2.0, [0, 1, -1, 0])
    assert [t.name for t in narrow.data][1] == "exact discrete pmf"
    assert list(narrow.data[0].x[:2]) == [-14.0, -13.0]  # one bar per integer, ±ceil(2 ln 1000)
    wide = discrete_laplace_figure(200.0, [0, 500, -700])
    assert len(wide.data) == 2  # bars and the continuous density only
    assert wide.data[0].width > 1 and len(wide.data[0].x) <= 101


def test_labels_page_runs_the_sweep_with_secure_noise():
    app = open_page(
        "pages/laplace_labels.py", epochs="1", model="logistic", prior="histogram", noise="secure"
    )
    assert_no_errors(app)
    assert app.selectbox(key="noise").value == "secure"
    assert any("exact discrete scale 2" in c.value for c in app.caption)
    app.button(key="run_regression").click().run()
    assert_no_errors(app)
    budget = app.table[0].value
    assert "exact discrete Laplace (secure, os.urandom)" in budget["mechanism"].iloc[0]
    assert float(budget["epsilon"].iloc[-1]) <= 1.0  # shown to 6 significant digits


def test_pate_page_switches_to_secure_noise():
    app = open_page(
        "pages/pate.py",
        epochs="1",
        teachers="5",
        queries="25",
        teacher_epochs="1",
        aggregator="lnmax",
        self_training_rounds="0",
    )
    assert_no_errors(app)
    assert not any("Secure noise" in c.value for c in app.caption)
    app.sidebar.selectbox(key="noise").set_value("secure").run()
    assert_no_errors(app)
    secure = [c.value for c in app.caption if c.value.startswith("Secure noise")]
    assert secure and "exact discrete Laplace (secure, os.urandom), scale " in secure[0]
    assert float(_metrics(app)["ε spent"]) <= 1.0
