"""The DP-SGD page: its noise, budget and accountants, and no PRV run for a point not computed."""

import json

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.accounting.dpsgd import CALIBRATION_RTOL

PAGE = "pages/dpsgd.py"


def test_page_never_runs_prv_for_a_point_it_has_not_computed(monkeypatch):
    # PRV over thousands of steps took minutes and gigabytes on page load (one link); without a
    # run the page shows RDP's sigma and says a training calibrates with PRV.
    import labeldp_core.accounting
    from labeldp_core.experiments import road

    asked = []
    real = labeldp_core.accounting.calibrate_noise_multiplier

    def recording(epsilon, delta, q, steps, accountant="rdp", *args, **kwargs):
        asked.append(accountant)
        return real(epsilon, delta, q, steps, accountant, *args, **kwargs)

    monkeypatch.setattr(labeldp_core.accounting, "calibrate_noise_multiplier", recording)
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    monkeypatch.setattr(road, "AUTO_COMPUTE_MAX_IMAGES", 0)  # not computed: a button
    app = open_page(PAGE, epochs="1", model="logistic", accountant="prv")
    assert_no_errors(app)
    assert app.button(key="compute_point")
    assert asked and set(asked) == {"rdp"}
    assert any("a training calibrates with PRV" in c.value for c in app.caption)


def test_page_shows_noise_budget_accountants_and_the_units_sentence():
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    sigma_at_1 = metrics["Noise multiplier σ"]
    assert metrics["ε spent"] != ""
    assert float(metrics["ε by RDP"]) >= float(metrics["ε by PRV"])
    captions = " ".join(c.value for c in app.caption)
    assert "DP-SGD protects whole examples" in captions and "not directly comparable" in captions
    # A float run says in one line that its seed replays it, and what its epsilon covers.
    assert "**Replayable from its seed:**" in captions and "not a release" in captions
    assert "**What ε covers:** the whole training split." in captions
    # The defaults are the published recipe's, and the page says why they were not tuned here.
    assert app.selectbox(key="clip").value == app.selectbox(key="batch").value == "recipe"
    assert "Papernot et al. 2021" in captions and "on the private data would leak it" in captions
    # A larger budget needs less noise.
    app.number_input(key="epsilon").set_value(4.0).run()
    assert_no_errors(app)
    sigma_at_4 = {m.label: m.value for m in app.metric}["Noise multiplier σ"]
    assert float(sigma_at_4) < float(sigma_at_1)
    # PRV is tighter than RDP: the same promise with less noise.
    app.selectbox(key="accountant").set_value("prv").run()
    assert_no_errors(app)
    sigma_prv = {m.label: m.value for m in app.metric}["Noise multiplier σ"]
    assert float(sigma_prv) < float(sigma_at_4)
    # With PRV the budget chart draws the run's own PRV line, which lands on the target; the RDP
    # line of the same sigma is labelled as the bound it is.
    budget = json.loads(app.get("plotly_chart")[0].proto.spec)
    names = [trace.get("name", "") for trace in budget["data"]]
    assert any(n.endswith("(implied by ε under PRV): RDP bound") for n in names)
    (own,) = [t for t in budget["data"] if "this run, PRV" in t.get("name", "")]
    assert own["y"][-1] == pytest.approx(4.0, rel=CALIBRATION_RTOL)
    assert any("the thick line is the run's own PRV ε" in c.value for c in app.caption)
    assert not app.warning
    # A delta of 1/n or more is allowed, with a warning. (With the RDP accountant, as the sweep
    # below: the warning reads delta and n only, and calibrating this point with PRV took about
    # 3 s of CPU, a third of this test.)
    app.selectbox(key="accountant").set_value("rdp").run()
    assert_no_errors(app)
    assert not app.warning
    app.selectbox(key="delta").set_value(1e-3).run()
    assert_no_errors(app)
    assert any("1/1,437" in w.value for w in app.warning)
    # The sweep fills DP-SGD and RR points; the chart then says they are all cached. (With the
    # RDP accountant: calibrating every point of the sweep with PRV took most of this test.)
    app.button(key="run_sweep").click().run()
    assert_no_errors(app)
    assert any("Every DP-SGD and randomized-response point" in c.value for c in app.caption)
    chart = json.loads(app.get("plotly_chart")[-1].proto.spec)
    legend = [trace.get("name", "") for trace in chart["data"]]
    assert any("DP-SGD: ε per example (add/remove)" in name for name in legend)
    assert any("Randomized response: ε per label (replace-one)" in name for name in legend)
