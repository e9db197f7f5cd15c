"""One number per quantity: the tables show numbers without float noise, the same baseline."""

import math
from dataclasses import replace

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page
from fake_results import fake_result, store_clean_models

from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs
from labeldp_core.experiments.runner import result_key


def _noisy(config: RunConfig) -> RunResult:
    """A stored run whose numbers carry float noise: ε spent just under ε asked, thirds."""
    return fake_result(
        mechanism=config.mechanism,
        seed=config.seed,
        epsilon=config.epsilon,
        epsilon_spent=config.epsilon - 3e-15 * config.epsilon,  # 8 -> 7.999999999999997
        privacy_unit=MECHANISMS[config.mechanism].privacy_unit,
        settings=dict(config.settings),
        test_accuracy=0.7 + config.seed / 30,
        baseline_test_accuracy=0.9 + config.seed / 70,
    )


def _cells(table) -> list[float]:
    return [v for column in table.columns for v in table[column] if isinstance(v, float)]


def _shown_with_noise(value: float) -> bool:
    """Whether ``value`` needs more than 4 significant digits to be written (float noise)."""
    return value != 0 and not math.isclose(value, float(f"{value:.4g}"), rel_tol=0, abs_tol=0)


def test_compare_tables_show_four_significant_digits_and_never_spent_above_asked(cache):
    chosen = ["laplace", "rr"]
    for config in demo_configs("digits", chosen, DEMO_SEEDS, 1, "cnn", variants=False):
        cache.put_json(result_key(cache, config), _noisy(config).to_dict())
    app = open_page("pages/compare.py", epochs="1", mechanisms=chosen, epsilon="8.0")
    assert_no_errors(app)
    at_epsilon, numbers = app.dataframe[0].value, app.dataframe[-1].value
    for table in (at_epsilon, numbers):
        noisy = [v for v in _cells(table) if _shown_with_noise(v)]
        assert not noisy, noisy
    assert list(at_epsilon["ε spent"]) == [8.0, 8.0]
    spent = numbers["epsilon spent (max over seeds)"]
    assert (spent <= numbers["epsilon asked"]).all()
    assert set(numbers.loc[numbers["epsilon asked"] == 8.0, "epsilon spent (max over seeds)"]) == {
        8.0
    }
    assert set(numbers["mean"]) == {0.7333}


def test_compare_and_choose_epsilon_write_the_summary_at_an_epsilon_in_one_format(cache):
    # Issue 53, section 3: Compare's 'At ε ≈ 8, by privacy unit' wrote 0.7333 and ± 0.0272
    # (four significant digits) where Choose ε's 'I can afford ε = x' wrote the same rows'
    # scores 0.733 and 0.027: each score in three decimals on both.
    import re

    chosen = ["laplace", "rr"]
    for config in demo_configs("digits", chosen, DEMO_SEEDS, 1, "cnn", variants=False):
        cache.put_json(result_key(cache, config), _noisy(config).to_dict())
    compare = open_page("pages/compare.py", epochs="1", mechanisms=chosen, epsilon="8.0")
    choose = open_page("pages/choose_epsilon.py", epochs="1", afford="8.0")
    assert_no_errors(compare)
    assert_no_errors(choose)
    (afford,) = [d.value for d in choose.dataframe if "± std" in d.value.columns]
    summaries = (compare.dataframe[0].value, afford)
    scores = [[*table["test accuracy"], *table["± std"]] for table in summaries]
    assert all(re.fullmatch(r"\d+\.\d{3}", str(s)) for s in scores[0] + scores[1]), scores
    assert sorted(scores[0]) == sorted(s for s in scores[1] if s in scores[0]), scores


def test_a_spent_epsilon_is_shown_rounded_down_where_rounding_would_pass_the_asked_one():
    from labeldp_core.base.numbers import shown, shown_spent

    assert shown(7.999999999999997) == 8.0 and shown(0.73333333) == 0.7333
    assert shown_spent(7.999999999999997, 8.0) == 8.0
    asked = 0.123456789  # an ε found by bisection: 4 digits round it up, above itself
    assert shown_spent(asked, asked) == 0.1234 <= asked
    assert shown_spent(1.5, 1.0) == 1.5  # DPPL-Mean may spend above its ε asked: shown as is


#: Each demo seed's clean model (the default recipe): their mean is the one baseline, 0.97.
CLEAN = {0: 0.96, 1: 0.97, 2: 0.98}


def _store_runs(cache, mechanism: str) -> None:
    """Cache ``mechanism``'s demo grid with noisy numbers and each run's own clean score."""
    for config in demo_configs("digits", [mechanism], DEMO_SEEDS, 1, "cnn", variants=False):
        run = _noisy(config)
        if mechanism == "labeldp-pro":
            details = {"test_curve": [0.5, 0.7], "noise_multiplier": 1.0, "steps": 10}
            details |= {"accountant": "rdp"}  # what every LabelDP-Pro run records
            run = replace(run, details=details)
        if mechanism == "rr":
            confusion = [[9 if i == j else 1 for j in range(10)] for i in range(10)]
            run = replace(run, details={"confusion": confusion}, flip_rate=0.5, label_accuracy=0.5)
        cache.put_json(result_key(cache, config), run.to_dict())


def _clean_lines(figure: dict) -> list[float]:
    """The y of each horizontal line of ``figure`` (the clean model's, the chance level)."""
    shapes = figure["layout"].get("shapes", ())
    return [s["y0"] for s in shapes if s.get("y0") == s.get("y1") and s.get("xref") != "paper"]


def test_rr_labeldp_pro_and_compare_draw_one_clean_baseline_and_rr_the_mean_curve(cache):
    store_clean_models(cache, CLEAN, epochs=1)
    for mechanism in ("rr", "labeldp-pro"):
        _store_runs(cache, mechanism)
    pages = {
        "pages/randomized_response.py": "accuracy_curve",
        "pages/labeldp_pro.py": "labeldp_pro_curve",
        "pages/compare.py": "compare_classification",
    }
    for page, key in pages.items():
        app = open_page(page, epochs="1", epsilon="1.0", mechanisms=["rr", "labeldp-pro"])
        assert_no_errors(app)
        assert pytest.approx(0.97) in _clean_lines(chart_spec(app, key)), page
        if page == "pages/randomized_response.py":  # the curve: the seeds' mean, with its band
            figure = chart_spec(app, key)
            (line,) = [t for t in figure["data"] if t.get("mode") == "lines+markers"]
            assert line["y"] == pytest.approx([0.7 + 1 / 30] * 7)
            assert any(t.get("fill") for t in figure["data"])
            captions = " ".join(c.value for c in app.caption)
            assert "These numbers are the run on seed 0" in captions  # the metrics above it


@pytest.mark.usefixtures("instant_training")
def test_the_pate_page_draws_the_same_clean_baseline_as_the_other_pages(cache):
    # PATE's student trains with batches of its own, so its run records another clean model; the
    # page's dashed line is the pages' one clean baseline, and the caption says which seed.
    store_clean_models(cache, CLEAN, epochs=1)
    app = open_page(
        "pages/pate.py", epochs="1", teachers="5", queries="50", teacher_epochs="1",
        self_training_rounds="0",
    )  # fmt: skip
    assert_no_errors(app)
    assert pytest.approx(0.97) in _clean_lines(chart_spec(app, "student_curve"))
    caption = " ".join(c.value for c in app.caption)
    assert "the same student (seed 0)" in caption and "the mean over seeds 0, 1 and 2" in caption


def _spent_just_under_asked(cache) -> int:
    """Rewrite every stored run's ε spent to 0.999873 of its ε asked (an accountant's answer)."""
    import json

    rewritten = 0
    for key in cache.stored_keys():
        kind, body, identity = cache.entry(key) or ("", b"", None)
        run = json.loads(body) if kind == "json" else None
        if isinstance(run, dict) and {"epsilon", "epsilon_spent", "mechanism"} <= set(run):
            run["epsilon_spent"] = run["epsilon"] * 0.999873
            cache.put_entry(key, kind, json.dumps(run).encode(), identity)
            rewritten += 1
    return rewritten


@pytest.mark.usefixtures("instant_training")
@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("pages/rr_prior.py", {"model": "logistic"}),
        ("pages/dpsgd.py", {"model": "logistic"}),
        ("pages/dppl.py", {}),
        ("pages/pate.py", {"teachers": "5", "queries": "50", "teacher_epochs": "1"}),
    ],
)
def test_the_mechanism_pages_write_eps_spent_and_scores_in_the_one_format(cache, page, query):
    # Issue 53, section 3: the same ε spent read 0.999 on DP-SGD, DPPL and PATE (3 digits),
    # 0.9999 on RR with prior (4): every page writes an ε spent by `epsilon_text`, never above
    # the ε asked, and every score and its change by `score_text`.
    import re

    import streamlit as st

    assert_no_errors(open_page(page, epochs="1", **query))
    assert _spent_just_under_asked(cache)
    st.cache_data.clear()
    st.cache_resource.clear()
    app = open_page(page, epochs="1", **query)
    assert_no_errors(app)
    metrics = {m.label: m for m in app.metric}
    assert metrics["ε spent"].value.split(",")[0] == "0.9999", metrics["ε spent"].value
    scores = [m for label, m in metrics.items() if "acc" in label.lower()]
    assert scores and all(re.fullmatch(r"\d\.\d{3}", m.value) for m in scores), scores
    assert all(re.fullmatch(r"[+-]\d\.\d{3}( .*)?", m.delta or "+0.000") for m in scores)
