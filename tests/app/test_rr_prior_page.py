import numpy as np
import pytest
from app_helpers import assert_no_errors, chart_spec, open_page

from labeldp_core import plots
from labeldp_core.experiments import lookup, make_config, run
from labeldp_core.experiments.demo import demo_epsilons
from labeldp_core.experiments.runner import result_key

PAGE = "pages/rr_prior.py"


def test_histograms_show_shares_of_examples():
    sizes = plots.set_size_histogram([6, 2, 0, 2])
    assert list(sizes.data[0].x) == [1, 2, 3, 4]
    assert list(sizes.data[0].y) == pytest.approx([0.6, 0.2, 0.0, 0.2])
    mass = plots.prior_mass_histogram([1, 3], [0.0, 0.5, 1.0])
    assert list(mass.data[0].x) == [0.25, 0.75]
    assert list(mass.data[0].y) == pytest.approx([0.25, 0.75])


def _budget(app) -> list[list[str]]:
    table = app.table[0].value
    return table.astype(str).values.tolist()


EPSILON_COLUMN, FROM_COLUMN = 3, 4


def test_page_shows_the_split_and_reacts_to_the_slider():
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    rows = _budget(app)
    assert [row[EPSILON_COLUMN] for row in rows[:3]] == ["0.2", "0.8", "1"]
    assert "sequential" in rows[2][1] and "parallel" in rows[4][1]
    # digits is computed at once, so RR with prior shows the run; LP-2ST is not computed yet.
    planned = "planned (not computed yet)"
    assert [row[FROM_COLUMN] for row in rows] == ["this run"] * 3 + [planned] * 2
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ε spent"] == "1"
    before = metrics["Measured flip rate"]

    app.sidebar.slider(key="prior_share").set_value(0.5).run()
    assert_no_errors(app)
    assert [row[EPSILON_COLUMN] for row in _budget(app)[:3]] == ["0.5", "0.5", "1"]
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ε spent"] == "1"
    assert metrics["Measured flip rate"] != before
    assert len(app.get("plotly_chart")) == 4
    # The charts draw the run's own numbers: the prior mass histogram and the k* histogram.
    settings = {"model": "logistic", "prior_share": 0.5, "clusters": 20}
    shown = lookup(make_config("rr-prior", "digits", 1.0, 0, 1, settings))
    assert shown is not None
    mass = chart_spec(app, "prior_mass")["data"][0]["y"]
    counts = np.asarray(shown.details["prior_true_mass_counts"])
    np.testing.assert_allclose(mass, counts / counts.sum())
    sizes = chart_spec(app, "set_size")["data"][0]["y"]
    sizes_counted = np.asarray(shown.details["set_size_counts"])
    np.testing.assert_allclose(sizes, sizes_counted / sizes_counted.sum())
    assert not any("stage by stage" in header.value for header in app.subheader)  # not cached


def test_budget_table_shows_what_the_run_spent_not_the_slider(cache):
    settings = {"model": "logistic", "prior_share": 0.2, "clusters": 20}
    config = make_config("rr-prior", "digits", 1.0, 0, 1, settings)
    run(config, cache)
    key = result_key(cache, config)
    stored = cache.get_json(key)
    # A budget other than the slider's plan (secure noise, say, spends a little less on the
    # prior): the page must show the run's own numbers.
    stored["details"]["budget"] |= {"prior_epsilon": 0.15, "rr_epsilon": 0.85}
    cache.put_json(key, stored)
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    rows = _budget(app)
    assert [row[EPSILON_COLUMN] for row in rows[:3]] == ["0.15", "0.85", "1"]
    assert {row[FROM_COLUMN] for row in rows[:3]} == {"this run"}


def test_page_link_restores_the_split_and_clusters():
    app = open_page(
        PAGE, epochs="1", model="logistic", prior_share="0.3", clusters="50", epsilon="2.0"
    )
    assert_no_errors(app)
    assert app.sidebar.slider(key="prior_share").value == pytest.approx(0.3)
    assert app.sidebar.selectbox(key="clusters").value == 50
    assert [row[EPSILON_COLUMN] for row in _budget(app)[:3]] == ["0.6", "1.4", "2"]


@pytest.mark.slow
def test_page_sweep_fills_all_three_curves():
    app = open_page(PAGE, epochs="1", model="logistic")
    sweep = app.button(key="run_sweep")
    # Three mechanisms on the demo grid, less RR with prior at ε = 1, which the page computed.
    assert f"{3 * len(demo_epsilons('rr-prior')) - 1} missing points" in sweep.label
    sweep.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "run_sweep"]
    assert any("Every point of these curves is cached" in c.value for c in app.caption)
    assert any("stage by stage" in header.value for header in app.subheader)
    assert "Stage-1 model accuracy" in {m.label for m in app.metric}


def test_the_budget_table_shows_lp_2st_stage_1_steps_when_it_used_a_cluster_prior(cache):
    lp_config = make_config("lp-2st", "digits", 1.0, 0, 1, {"model": "logistic"})
    run(lp_config, cache)
    key = result_key(cache, lp_config)
    stored = cache.get_json(key)
    # The budget of a run whose stage 1 was RR with prior (fashion-mnist's default).
    steps = {"stage1_prior_epsilon": 0.05, "stage1_rr_epsilon": 0.95, "stage2_epsilon": 1.0}
    stored["details"]["budget"] |= steps
    cache.put_json(key, stored)
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    lp = [row for row in _budget(app) if row[0] == "LP-2ST"]
    assert [row[2] for row in lp] == ["part A", "part A", "part B", "each part once"]
    assert [row[EPSILON_COLUMN] for row in lp] == ["0.05", "0.95", "1", "1"]
    assert "histogram" in lp[0][1] and {row[FROM_COLUMN] for row in lp} == {"this run"}


def test_lp_2st_stage_1_control_picks_the_run_the_page_reads(cache):
    settings = {"model": "logistic", "stage1_prior": "clusters"}
    run(make_config("lp-2st", "digits", 1.0, 0, 1, settings), cache)
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    assert app.sidebar.selectbox(key="stage1_prior").value == "uniform"  # digits' recipe
    lp = [row for row in _budget(app) if row[0] == "LP-2ST"]
    assert {row[FROM_COLUMN] for row in lp} == {"planned (not computed yet)"}

    app.sidebar.selectbox(key="stage1_prior").set_value("clusters").run()
    assert_no_errors(app)
    lp = [row for row in _budget(app) if row[0] == "LP-2ST"]
    assert [row[2] for row in lp] == ["part A", "part A", "part B", "each part once"]
    assert {row[FROM_COLUMN] for row in lp} == {"this run"}
    assert (
        open_page(PAGE, epochs="1", stage1_prior="clusters")
        .sidebar.selectbox(key="stage1_prior")
        .value
        == "clusters"
    )
