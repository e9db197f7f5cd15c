"""The comparison and "what epsilon means" pages compute what they miss and show it."""

import json
import math
from dataclasses import replace

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page

from labeldp_core import plots
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, demo_epsilons
from labeldp_core.experiments.runner import result_key
from labeldp_core.mechanisms import keep_probability


def test_guess_bound_is_rr_keep_probability_for_a_uniform_prior():
    # Randomized response meets the uniform-prior bound exactly: it is the optimal mechanism.
    for epsilon in (0.1, 1.0, 5.0):
        assert plots.guess_bound(epsilon, 0.1) == pytest.approx(keep_probability(epsilon, 10))
    # A stronger prior belief can only go up, and never to certainty.
    assert plots.guess_bound(1.0, 0.9) > plots.guess_bound(1.0, 0.5) > 0.5
    assert plots.guess_bound(20.0, 0.5) < 1.0


@pytest.mark.usefixtures("instant_training")  # what is drawn, not learnt
def test_epsilon_page_trains_the_attacked_models_and_draws_the_bars():
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon="2.0")
    assert_no_errors(app)
    app.button(key="compute_attacks").click().run()
    assert_no_errors(app)
    charts = [c.proto.id.rsplit("-", 1)[-1] for c in app.get("plotly_chart")]
    assert charts == ["bound", "tally", "neighbours", "bars", "inference"]
    assert not [b for b in app.button if b.key == "compute_attacks"]


def test_epsilon_page_draws_each_attacked_mechanisms_inference_gain_across_epsilon(cache):
    attacked = ["rr", "rr-prior", "lp-2st", "laplace", "alibi", "vector-rr"]
    configs = demo_configs("digits", attacked, DEMO_SEEDS, 1, "cnn", False, False)
    for config in configs:  # training accuracy 0.8 + seed/100 against a clean 0.9 + seed/50
        result = _stand_in(config)
        attack = {"train_accuracy": 0.8 + config.seed / 100, "test_accuracy": 0.7}
        stored = replace(result, details={"attack": attack})
        cache.put_json(result_key(cache, config), stored.to_dict())
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon="2.0")
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "compute_inference"]
    figure = chart_spec(app, "inference")
    lines = {t["name"]: t for t in figure["data"] if t.get("mode") == "lines+markers"}
    assert set(lines) == {MECHANISMS[m].title for m in attacked}
    rr = lines[MECHANISMS["rr"].title]
    assert rr["x"] == list(demo_epsilons("rr"))
    assert rr["y"] == pytest.approx([0.8 + 0.01 - (0.9 + 0.02)] * len(rr["x"]))  # seeds' mean
    (bound,) = [t for t in figure["data"] if t["name"].startswith("bound")]
    assert bound["y"] == pytest.approx([1 - math.exp(-e) for e in bound["x"]])
    assert "Every point of this figure is cached." in " ".join(c.value for c in app.caption)


def test_the_inference_section_offers_to_train_what_is_missing():
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon="2.0")
    assert_no_errors(app)
    (button,) = [b for b in app.button if b.key == "compute_inference"]
    # rr, rr-prior, lp-2st, laplace, alibi and vector RR (issue 49: it trains on released
    # labels too) x 7 epsilons x 3 seeds
    assert "126 missing points" in button.label


@pytest.mark.usefixtures("instant_training")  # what is drawn, not learnt
def test_compare_page_lists_missing_points_and_fills_them():
    app = open_page("pages/compare.py", epochs="1", mechanisms=["rr", "laplace"])
    assert_no_errors(app)
    button = app.button(key="compute_missing")
    assert "42 missing points" in button.label  # 2 mechanisms x 7 epsilons x 3 seeds
    button.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "compute_missing"]
    table = app.dataframe[-1].value
    assert len(table) == 14 and set(table["seeds"]) == {3}


def _stand_in(config: RunConfig) -> RunResult:
    """A stored result for ``config``: a score and clean baseline per seed, DPPL-Mean at its rho."""
    spec = MECHANISMS[config.mechanism]
    seed, epsilon = config.seed, config.epsilon
    if config.mechanism == "dppl-mean":  # its own reference: non-private prototypes, not a model
        accounting = {"epsilon_spent": 0.5 * epsilon, "delta": 1e-5, "details": {"rho": 0.5}}
        scores = {"test_accuracy": 0.6, "baseline_test_accuracy": 0.5}
    elif spec.task == "regression":
        accounting = {"epsilon_spent": epsilon, "delta": 0.0, "details": {}}
        scores = {"test_mse": 4.0 / epsilon, "baseline_test_mse": 1.0 + seed / 5}
    else:
        accounting = {"epsilon_spent": epsilon, "delta": 0.0, "details": {}}
        scores = {"test_accuracy": 0.7, "baseline_test_accuracy": 0.9 + seed / 50}
    return RunResult(
        mechanism=config.mechanism,
        dataset=config.dataset,
        seed=seed,
        epsilon=epsilon,
        privacy_unit=spec.privacy_unit,
        n_train=1437,
        n_test=360,
        num_classes=10,
        elapsed_s=0.0,
        cached=False,
        epochs=1,
        settings=dict(config.settings),
        **accounting,
        **scores,
    )


def _baselines(spec: dict) -> list[float]:
    return [shape["y0"] for shape in spec["layout"].get("shapes", ()) if shape["y0"] == shape["y1"]]


def test_compare_page_draws_the_clean_baseline_without_rr_and_dppl_mean_at_epsilon_spent(cache):
    chosen = ["laplace", "dppl-mean", "rr-bins"]
    for config in demo_configs("digits", chosen, DEMO_SEEDS, 1, "cnn", variants=False):
        cache.put_json(result_key(cache, config), _stand_in(config).to_dict())
    app = open_page("pages/compare.py", epochs="1", mechanisms=chosen)
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "compute_missing"]
    accuracy, mse = (json.loads(c.proto.spec) for c in app.get("plotly_chart")[:2])
    # The clean baseline comes from any run that trains the model (here Laplace, seeds 0-2), not
    # from rr alone, and not from DPPL-Mean's non-private prototypes; the MSE chart gets one too.
    assert _baselines(accuracy) == [pytest.approx(0.92)]
    assert _baselines(mse) == [pytest.approx(1.2)]
    lines = {t["name"]: t for t in accuracy["data"] if t.get("mode") == "lines+markers"}
    dppl = lines["DPPL-Mean [example; ρ-zCDP as (ε, δ=1e-05)]"]
    assert dppl["x"] == [0.5 * e for e in demo_epsilons("dppl-mean")]
    assert "Laplace" in " ".join(lines) and "[label; pure ε]" in " ".join(lines)
    text = " ".join(m.value for m in app.markdown)
    assert "(2ε, (1 + e^ε)δ)-DP for changing one label" in text and "stronger promise" not in text
    table = app.dataframe[-1].value
    assert table["guarantee"].str.contains("ρ = 0.5 zCDP").sum() == 7
    # First screen: each mechanism at the chosen epsilon, label DP first, then example DP.
    summary = app.dataframe[0].value
    assert list(summary["privacy unit"]) == ["label", "label", "example"]
    assert set(summary["mechanism"]) == {MECHANISMS[m].title for m in chosen}
    # Under the charts, what label DP keeps at its smallest ε drawn (Laplace: the stand-in's 0.7).
    laplace = MECHANISMS["laplace"].title
    smallest = min(demo_epsilons("laplace"))
    story = f"At ε = {smallest:g}, the smallest label-DP budget drawn, {laplace} keeps 0.700"
    assert story in " ".join(c.value for c in app.caption)


def test_attack_bars_draw_each_measured_accuracy_and_the_bound_it_must_obey():
    rows = [
        {
            "mechanism": "rr",
            "released_label": 0.3,
            "model_on_training_example": 0.55,
            "model_on_test_example": 0.5,
        },
        {
            "mechanism": "laplace",
            "released_label": None,
            "model_on_training_example": 0.8,
            "model_on_test_example": 0.7,
        },
        {
            "mechanism": "clean",
            "private": False,
            "released_label": 1.0,
            "model_on_training_example": 0.99,
            "model_on_test_example": 0.9,
        },
    ]
    figure = plots.attack_bars(rows, 1.0, 10)
    bars = {bar.name: list(bar.y) for bar in figure.data if bar.type == "bar"}
    # Each bar is the accuracy itself (not 1 - accuracy), one group per mechanism.
    assert bars[plots.ATTACKS["released_label"]] == [0.3, None, 1.0]
    assert bars[plots.ATTACKS["model_on_training_example"]] == [0.55, 0.8, 0.99]
    assert bars[plots.ATTACKS["model_on_test_example"]] == [0.5, 0.7, 0.9]
    assert list(figure.layout.xaxis.ticktext) == ["rr", "laplace", "clean"]
    (ticks,) = [t for t in figure.data if t.type == "scatter"]
    uniform = plots.guess_bound(1.0, 0.1)  # e / (e + 9)
    own = [plots.guess_bound(1.0, pi) for pi in (0.5, 0.7)]  # pi e / (pi e + 1 - pi)
    # Released label against 1/K, the model's training guess against its held-out accuracy; the
    # clean model has no bound, nor a label that was not released (None: vector RR's bits).
    # Each tick sits on its own bar (left and middle of each group).
    assert list(ticks.y) == pytest.approx([uniform, own[0], own[1]])
    assert list(ticks.x) == pytest.approx([-0.8 / 3, 0.0, 1.0])
    # The model's bar is under its own bound though above the uniform line: no false alarm.
    assert uniform < 0.8 < own[1]


@pytest.mark.usefixtures("instant_training")  # what is drawn, not learnt
def test_compare_names_mechanisms_by_title_and_still_opens_links_with_ids():
    # The picker and the tables showed ids (rr, lp-2st); a link written with ids still works.
    app = open_page("pages/compare.py", epochs="1", mechanisms=["rr", "lp-2st"])
    assert_no_errors(app)
    picker = app.multiselect(key="mechanisms")
    assert picker.value == ["rr", "lp-2st"]
    assert [picker.format_func(m) for m in picker.value] == [
        MECHANISMS["rr"].title,
        MECHANISMS["lp-2st"].title,
    ]
    assert MECHANISMS["lp-2st"].title in picker.options and "lp-2st" not in picker.options
    app.button(key="compute_missing").click().run()
    assert_no_errors(app)
    for table in app.dataframe:
        if "mechanism" in table.value:
            assert set(table.value["mechanism"]) <= {m.title for m in MECHANISMS.values()}
    titled = open_page("pages/compare.py", epochs="1", mechanisms=[MECHANISMS["rr"].title])
    assert_no_errors(titled)
    assert titled.multiselect(key="mechanisms").value == ["rr"]
