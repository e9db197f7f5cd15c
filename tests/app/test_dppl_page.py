"""The DP prototypes page computes, switches mechanism, sweeps, and shows DP-SGD beside them."""

import json

import numpy as np
import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.experiments import make_config, run
from ui.results import result_cache

PAGE = "pages/dppl.py"


@pytest.fixture
def fresh_app_cache():
    """The app keeps one disk-cache handle per process; point it at this test's cache."""
    result_cache.clear()
    yield
    result_cache.clear()


def _spent(app):
    return {m.label: m.value for m in app.metric}["ε spent"]


def test_page_computes_switches_mechanism_and_runs_the_sweep(fresh_app_cache):
    app = open_page(PAGE, epochs="1")
    assert_no_errors(app)
    assert _spent(app) == "1, δ=1e-05"  # DPPL-Mean at eps 1: rho calibrated to (1, 1e-5)-DP
    assert any("Public:" in m.value and "Private:" in m.value for m in app.markdown)
    replay = [c.value for c in app.caption if c.value.startswith("**Replayable from its seed:**")]
    assert len(replay) == 1 and "a teaching run, not a release" in replay[0]
    app.selectbox(key="dppl_mechanism").set_value("dppl-public").run()
    assert_no_errors(app)
    assert _spent(app) == "1"
    assert len(app.get("plotly_chart")) == 4  # bars, prototype images, two curve figures
    sweep = app.button(key="dppl_sweep")
    assert "missing points" in sweep.label
    sweep.click().run()
    assert_no_errors(app)
    assert any("Every point of these curves is cached" in c.value for c in app.caption)
    before = app.get("plotly_chart")[2].proto.spec
    app.radio(key="dppl_x").set_value("ε asked for").run()  # the default is ε spent
    assert_no_errors(app)
    assert app.get("plotly_chart")[2].proto.spec != before


def test_page_shows_dpsgd_minority_accuracy_next_to_the_prototypes(cache, fresh_app_cache):
    # A real DP-SGD run at the page's default view: imbalance 10, seed 0, epsilon 1, the CNN.
    config = make_config("dpsgd", "digits", 1.0, epochs=1, settings={"imbalance": 10.0})
    dpsgd = run(config, cache)
    app = open_page(PAGE, epochs="1", dppl_mechanism="dppl-public")
    assert_no_errors(app)
    note = next(c.value for c in app.caption if "DP-SGD points (1 cached)" in c.value)
    assert "private set at imbalance 10" in note
    assert "What its ε covers: the imbalanced private set only" in note
    dppl = run(
        make_config("dppl-public", "digits", 1.0, epochs=1, settings={"imbalance": 10.0}), cache
    )
    assert dppl.cached and dpsgd.details["class_counts"] == dppl.details["class_counts"]
    minority = dppl.details["minority_classes"]
    expected = np.mean([dpsgd.details["per_class_accuracy"][c] for c in minority])
    charts = [json.loads(c.proto.spec) for c in app.get("plotly_chart")]
    bars = next(t for t in charts[0]["data"] if t.get("name") == "DP-SGD")
    assert bars["y"] == pytest.approx(
        [
            dpsgd.details["per_class_accuracy"][c]
            for c in np.argsort(-np.asarray(dppl.details["class_counts"]), kind="stable")
        ]
    )
    (line,) = [t for t in charts[-1]["data"] if t.get("name") == "DP-SGD, minority classes"]
    assert line["x"] == [1.0] and line["y"] == pytest.approx([expected])
    app.radio(key="dppl_view").set_value("minority classes").run()
    assert_no_errors(app)
    curves = json.loads(app.get("plotly_chart")[2].proto.spec)
    (line,) = [t for t in curves["data"] if t.get("name") == "DP-SGD"]
    assert line["y"] == pytest.approx([expected])


def test_the_missing_dp_sgd_caption_gives_a_command_that_runs():
    # It said "run `dpsgd` with --epochs None": no such command, and None is no number of epochs.
    from ui.dppl import dpsgd_comparison

    for epochs in (None, 3):
        note = dpsgd_comparison("digits", [1.0, 4.0], 0, epochs, "mlp", 1.0).note
        assert "None" not in note, note
        command = note.split("`")[1]
        assert command.startswith("python -m labeldp_core sweep dpsgd --dataset digits"), note
        assert "--epsilons 1 4" in command and "--seeds 0" in command
        assert "--set model=mlp" in command and "--set imbalance=1" in command
        assert ("--epochs 3" in command) == (epochs == 3)
