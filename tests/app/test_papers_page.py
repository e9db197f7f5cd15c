"""The papers page shows each paper's table beside ours, the closest to our models first.

The tests of the page on an empty cache (digits only, nothing computed) each read a different
part of one run of it, the page's run at its defaults that the readable-charts and warm-coverage
tours read too (``default_views``; this module runs on their worker).
"""

import re

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page
from default_views import GROUP, default_view

from labeldp_core.base.numbers import shown
from labeldp_core.services.published import paper_tables, published_figures

pytestmark = pytest.mark.xdist_group(GROUP)


@pytest.fixture(scope="module")
def empty_cache_page(tmp_path_factory: pytest.TempPathFactory):
    """The papers page opened on an empty cache, once for the tests that only read it."""
    return default_view("pages/papers.py", tmp_path_factory.mktemp("papers") / "cache").app


def test_the_page_leads_with_the_small_cnn_table_and_names_each_model_and_recipe(empty_cache_page):
    # The page used to show one table of every paper's figures, its models named loosely
    # (LP-MST's Inception called a ResNet-18) and no recipe at all.
    app = empty_cache_page
    assert_no_errors(app)
    titles = [s.value for s in app.subheader]
    tables = paper_tables()
    assert titles[: len(tables)] == [t.title for t in tables]
    assert titles[0].startswith("LabelDP-Pro's small CNN")
    first = app.dataframe[0].value
    assert set(first["model"]) == {next(f.model for f in published_figures())}
    assert first["model"].iloc[0].startswith("small CNN")
    assert set(first["method"].str.split(" (", regex=False).str[0]) == {
        "RR",
        "LP-2ST",
        "ALIBI",
        "DP-SGD",
        "LabelDP-Pro",
    }
    assert sorted(set(first["epsilon"])) == [0.1, 0.5, 1.0, 2.0]
    assert first["recipe"].iloc[0] and first["our setting"].iloc[0].startswith("model=")
    captions = " ".join(c.value for c in app.caption)
    assert "simplified Inception" in captions and "40 epochs per stage" in captions
    # A chart and a table per (paper's table, dataset), then the lessons' table.
    shown = {(f.table, f.dataset) for f in published_figures()}
    assert len(app.dataframe) == len(shown) + 1


def test_the_pate_lesson_is_shown_for_the_counts_and_for_the_argmax(empty_cache_page):
    app = empty_cache_page
    assert_no_errors(app)
    lessons = app.dataframe[-1].value
    pate = lessons[lessons["lesson"].str.contains("int(noise)", regex=False)]
    assert list(pate["released"]) == [
        "the noisy vote counts",
        "only the argmax (what PATE publishes)",
    ]
    assert any("only the argmax" in c.value and "1 + 2 ln 2" in c.value for c in app.caption)


def test_a_digits_only_cache_is_told_what_is_missing_and_how_to_fill_it(empty_cache_page):
    # On a digits-only setup every bar of ours was missing with no word why, and the bars were
    # named by ids (ghazi2021-lp1st-eps1).
    app = empty_cache_page
    assert_no_errors(app)
    figures = published_figures()
    (note,) = [i.value for i in app.expander[0].markdown]  # the details, under the one line
    assert note.startswith(f"None of the {len(figures)} published figures has a run of this")
    assert "fashion-mnist" in note and "python -m labeldp_core reproduce --compute" in note
    for key, expected in (
        ("labeldp-pro-small-cnn-fashion-mnist", "LabelDP-Pro · small CNN<br>(Ghazi et al. 2024"),
        ("ghazi2021-table4-fashion-mnist", "LP-2ST · simplified Inception<br>(Ghazi et al. 2021"),
    ):
        spec = chart_spec(app, f"papers-{key}")
        names = [str(x) for trace in spec["data"] for x in trace["x"]]
        assert names and not [n for n in names if any(f.id in n for f in figures)]
        assert any(n.startswith(expected) for n in names), names
        assert spec["layout"]["yaxis"]["title"]["text"] == "test accuracy"
        assert "none computed yet" in spec["data"][1]["name"]
    assert any("ours not computed yet for 20 of the 20 rows" in c.value for c in app.caption)
    assert not [c.value for c in app.caption if "ghazi2021" in c.value]


def test_a_computed_row_shows_our_figure_beside_theirs_in_its_table(
    cache, monkeypatch, instant_training
):
    # A stand-in figure of the small-CNN table on digits, so its three runs compute in seconds.
    from labeldp_core.services.reproduce import paper_configs, paper_rows

    figure = published_figures()[0]
    ours = {"mechanism": "rr", "settings": {"model": "logistic"}}
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "ours": ours}))
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    (computed,) = paper_rows(cache, compute=True)
    app = open_page("pages/papers.py")
    assert_no_errors(app)
    assert not app.info  # nothing left to fill
    (table, _lessons) = app.dataframe
    assert list(table.value["ours"]) == [shown(computed["ours"])]
    assert list(table.value["theirs"]) == [figure.value]
    epochs = paper_configs(stand_in)[0].epochs
    assert list(table.value["our setting"]) == [f"model=logistic, {epochs} epochs"]
    spec = chart_spec(app, f"papers-{figure.table}-digits")
    assert spec["data"][1]["y"] == [computed["ours"]]
    assert any(c.value == "digits: every row is computed." for c in app.caption)


def test_the_free_accuracy_table_compares_gains_and_names_both_datasets(empty_cache_page):
    # Its papers publish on CIFAR, ours runs on Fashion-MNIST: the page must not draw their
    # CIFAR accuracy beside ours as if it were the same figure; it shows the gains.
    app = empty_cache_page
    assert_no_errors(app)
    free = [f for f in published_figures() if f.table == "free-accuracy"]
    title = next(t.title for t in paper_tables() if t.id == "free-accuracy")
    assert title in [s.value for s in app.subheader]
    for dataset in {f.dataset for f in free}:
        with pytest.raises(AssertionError, match="no chart"):
            chart_spec(app, f"papers-free-accuracy-{dataset}")
    captions = " ".join(c.value for c in app.caption)
    assert "the paper's figures are on cifar-10, ours on fashion-mnist: different datasets" in (
        captions
    )
    assert "which this machine does not have" in captions
    tables = [d.value for d in app.dataframe if "our gain" in d.value.columns]
    assert sum(len(t) for t in tables) == len(free)
    for table in tables:
        assert "ours" not in table.columns  # never our accuracy beside theirs
        assert set(table["our dataset"]) == {"fashion-mnist"}


def test_a_digits_only_cache_reads_one_line_of_what_the_page_needs_and_a_warm_button(
    empty_cache_page,
):
    # It read a paragraph of command lines, tables of "None" cells and raw headers
    # (computed_seeds, their_retention).
    app = empty_cache_page
    assert_no_errors(app)
    (note,) = [i.value for i in app.info]
    assert note.startswith("This page needs fashion-mnist and mnist warmed")
    assert "\n" not in note and note.count(". ") <= 1
    assert {b.label for b in app.button} >= {"Warm fashion-mnist", "Warm mnist"}
    for table in app.dataframe:
        frame = table.value
        assert not [c for c in frame.columns if "_" in str(c)], list(frame.columns)
        assert not frame.isna().any().any()
        assert "None" not in set(frame.astype(str).to_numpy().ravel())


def test_each_labeldp_pro_row_shows_the_papers_likely_sigma_as_our_reading(empty_cache_page):
    # Issue 51: the paper reads DP-SGD's add/remove epsilon as the label's, we read a changed
    # label by group privacy, so the same epsilon is not the same noise; the page sets the
    # paper's likely sigma beside each of its rows, with the run of ours at that sigma.
    app = empty_cache_page
    assert_no_errors(app)
    first = app.dataframe[0].value
    sigma, at = "σ the paper likely used (our reading)", "ours at that σ (our reading)"
    pro = first[first["method"].str.startswith("LabelDP-Pro")]
    others = first[~first["method"].str.startswith("LabelDP-Pro")]
    expected = {
        f.epsilon: f.equal_noise["noise_multiplier"]
        for f in published_figures()
        if f.equal_noise and f.dataset == "fashion-mnist"
    }
    assert {e: float(s) for e, s in zip(pro["epsilon"], pro[sigma], strict=True)} == {
        e: float(shown(s)) for e, s in expected.items()
    }
    assert set(others[sigma]) == {"—"}
    assert all(
        cell.startswith("not run: python -m labeldp_core run labeldp-pro --dataset fashion-mnist")
        for cell in pro[at]
    )
    captions = " ".join(c.value for c in app.caption)
    assert "Equal noise, our reading" in captions and "batch 1,024, 5 epochs, δ 1e-05" in captions


def test_a_stored_equal_noise_run_shows_our_accuracy_at_the_papers_sigma(
    cache, monkeypatch, instant_training
):
    # A stand-in LabelDP-Pro figure on digits, its equal-noise runs computed (one epoch each).
    from labeldp_core.experiments import make_config, run
    from labeldp_core.services.reproduce import SEEDS, paper_rows

    figure = next(f for f in published_figures() if f.equal_noise)
    entry = {"noise_multiplier": 8.0, "batch": 256, "epochs": 10, "delta": 1e-5}
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "equal_noise": entry}))
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    (row,) = paper_rows(cache)
    epsilon = row["equal_noise_epsilon"]
    scores = [run(make_config("labeldp-pro", "digits", epsilon, s), cache).score for s in SEEDS]
    app = open_page("pages/papers.py")
    assert_no_errors(app)
    table = app.dataframe[0].value
    assert list(table["σ the paper likely used (our reading)"]) == [8.0]
    assert list(table["our ε at that σ"]) == [epsilon]
    (cell,) = table["ours at that σ (our reading)"]
    mean, seeds, run_sigma = re.fullmatch(r"(\S+) \((\d) of 3 seeds, σ (\S+)\)", cell).groups()
    assert (mean, seeds) == (f"{sum(scores) / len(scores):.3f}", "3")
    assert 8.0 <= float(run_sigma) <= 8.08  # our run calibrates to that sigma, never less noise
