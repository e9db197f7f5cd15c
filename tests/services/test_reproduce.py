"""`reproduce`: published figures beside ours, and the seeds' claimed vs true epsilons."""

import csv
import json
import math

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.accounting.truncated_votes import argmax_loss, vote_counts_loss
from labeldp_core.experiments import MECHANISMS, lookup
from labeldp_core.services.reproduce import (
    dataset_configs,
    fill_instructions,
    gap_sentence,
    lesson_rows,
    paper_configs,
    paper_line,
    paper_rows,
    paper_tables,
    published_figures,
    sections,
    without_configs,
)
from labeldp_core.services.warm import warm_tasks


def test_the_citation_file_parses_and_every_row_names_its_source():
    figures = published_figures()
    assert len({f.id for f in figures}) == len(figures) >= 5
    for figure in figures:
        assert figure.paper and figure.where and figure.quoted_from
        assert figure.model and figure.recipe  # a figure without its setting compares nothing
        assert "arXiv" in figure.paper or "OpenReview" in figure.paper  # a findable reference
        assert 0 < figure.value <= 1 and figure.epsilon > 0
        assert figure.delta is None or figure.delta >= 0  # None: the source read states none
        assert figure.ours["mechanism"] in MECHANISMS
        assert MECHANISMS[figure.ours["mechanism"]].privacy_unit == figure.privacy_unit
        assert all(c.epsilon == figure.epsilon for c in paper_configs(figure))


def _value(figures, table, dataset, method, epsilon):
    (figure,) = [
        f
        for f in figures
        if (f.table, f.dataset, f.epsilon) == (table, dataset, epsilon)
        and f.method.startswith(method + " ")
    ]
    return figure


def test_the_small_cnn_table_comes_first_with_its_five_methods_at_four_epsilons():
    # LabelDP-Pro's small CNN is the closest to this explorer's models (issue 40): read from
    # the paper, Table 14 (Fashion-MNIST) and Table 5(a) (MNIST).
    figures = published_figures()
    first = paper_tables()[0]
    assert first.id == "labeldp-pro-small-cnn"
    rows = [f for f in figures if f.table == first.id]
    assert {(f.dataset, f.epsilon, f.ours["mechanism"]) for f in rows} == {
        (dataset, epsilon, mechanism)
        for dataset in ("fashion-mnist", "mnist")
        for epsilon in (0.1, 0.5, 1.0, 2.0)
        for mechanism in ("rr", "lp-2st", "alibi", "dpsgd", "labeldp-pro")
    }
    for dataset, expected in (
        ("fashion-mnist", (0.757, 0.798, 0.817)),
        ("mnist", (0.911, 0.941, 0.943)),
    ):
        got = [_value(figures, first.id, dataset, "LabelDP-Pro", e).value for e in (0.1, 0.5, 1.0)]
        assert got == list(expected)
    assert {f.model for f in rows} == {rows[0].model} and rows[0].model.startswith("small CNN")
    # RR, LP-2ST and ALIBI are pure (delta 0); the paper states no delta for DP-SGD's rows.
    assert {f.delta for f in rows if f.ours["mechanism"] in ("rr", "lp-2st", "alibi")} == {0.0}
    assert {f.delta for f in rows if f.ours["mechanism"] in ("dpsgd", "labeldp-pro")} == {None}


def test_lp_mst_rows_name_the_inception_recipe_and_lp_1st_is_plain_rr():
    # The file called their Fashion-MNIST model a ResNet-18 and matched LP-1ST to RR-with-prior.
    figures = published_figures()
    rows = [f for f in figures if f.table == "ghazi2021-table4"]
    assert {f.dataset for f in rows} == {"fashion-mnist", "mnist"}
    assert all(f.model.startswith("simplified Inception") for f in rows)
    assert all("40 epochs per stage" in f.recipe and "mixup" in f.recipe for f in rows)
    lp1 = _value(figures, "ghazi2021-table4", "fashion-mnist", "LP-1ST", 1.0)
    lp2 = _value(figures, "ghazi2021-table4", "fashion-mnist", "LP-2ST", 1.0)
    assert (lp1.value, lp2.value, lp1.clean_value) == (0.8078, 0.8326, 0.9428)
    assert lp1.ours["mechanism"] == "rr" and lp2.ours["mechanism"] == "lp-2st"
    assert {f.delta for f in rows} == {0.0}


def test_rows_carry_their_setting_and_ours_and_the_page_groups_them_by_table(cache):
    rows = paper_rows(cache)
    assert all(row["model"] and row["recipe"] and row["our_setting"] for row in rows)
    parts = sections(rows)
    assert [part.table.id for part in parts] == [table.id for table in paper_tables()]
    assert sum(len(part.rows) for part in parts) == len(rows)
    lead = parts[0]
    assert list(lead.datasets()) == ["fashion-mnist", "mnist"]
    assert lead.setting().startswith("Their model: small CNN")
    assert parts[-1].setting() == "Each row's model and recipe are in its table."


def test_the_gap_sentence_reads_the_closest_table_best_figure_per_epsilon(cache):
    rows = paper_rows(cache)
    pro = next(r for r in rows if r["id"] == "labeldppro2024-labeldp-pro-fashion-mnist-eps0p1")
    pro |= {"computed_seeds": 3, "ours": 0.6}
    sentence = gap_sentence(rows, "fashion-mnist")
    assert "LabelDP-Pro's small CNN" in sentence
    assert "ε = 0.1 LabelDP-Pro 75.7% (ours 60.0%)" in sentence
    assert "ε = 2 LP-2ST 84.8% (ours not computed yet)" in sentence
    others = sum(r["dataset"] == "fashion-mnist" for r in rows) - 20
    assert f"{others} more published figures on fashion-mnist" in sentence
    assert gap_sentence(rows, "digits").startswith("No published figure on digits")


def test_reproduce_json_has_a_row_for_every_entry_and_marks_what_is_not_computed(capsys):
    assert main(["reproduce", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in report["papers"]] == [f.id for f in published_figures()]
    assert all(row["computed_seeds"] == 0 for row in report["papers"])  # an empty cache
    assert len(report["lessons"]) == 4  # three lessons, PATE's twice: counts and argmax


def test_computed_runs_fill_our_side_with_mean_range_and_retention(
    cache, monkeypatch, instant_training
):
    # A stand-in figure on digits, so its three runs are computed here in seconds.
    figure = published_figures()[0]
    ours = {"mechanism": "rr", "settings": {"model": "logistic"}}
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "ours": ours}))
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    (row,) = paper_rows(cache)
    assert row["computed_seeds"] == 0  # nothing cached: answered at once, marked missing
    (row,) = paper_rows(cache, compute=True)
    assert row["computed_seeds"] == 3
    assert row["ours_min"] <= row["ours"] <= row["ours_max"]
    assert row["our_retention"] == pytest.approx(row["ours"] / row["our_clean"])
    assert row["our_epsilon_spent"] <= figure.epsilon
    (again,) = paper_rows(cache)  # now from the cache
    assert again == row


def test_each_lesson_claims_less_than_it_spends_and_the_audit_refutes_it(cache):
    audited = [row for row in lesson_rows(cache) if row["audit_case"] is not None]
    assert len(audited) == 3
    for row in audited:
        assert row["true_epsilon"] > row["claimed_epsilon"]
        assert row["claimed_epsilon"] < row["audited_lower_bound"] <= row["true_epsilon"] + 0.05


def test_the_pate_lesson_shows_the_counts_and_the_argmax_each_named_by_what_is_released(cache):
    pate = [row for row in lesson_rows(cache) if "int(noise)" in row["lesson"]]
    assert [row["released"] for row in pate] == [
        "the noisy vote counts",
        "only the argmax (what PATE publishes)",
    ]
    counts, argmax = pate
    # Each figure is the computation's, at PATE's scale 2/epsilon for the claimed epsilon 1.
    assert counts["true_epsilon"] == vote_counts_loss(2.0) == pytest.approx(1 + 2 * math.log(2))
    assert argmax["true_epsilon"] == argmax_loss(2.0) == 1.0
    assert argmax["claimed_epsilon"] == 1.0  # the claim holds when only the argmax is released
    assert argmax["audited_lower_bound"] is None and "2/b" in argmax["how"]


def test_the_cli_prints_both_pate_figures(cache, capsys):
    assert main(["reproduce"]) == 0
    out = capsys.readouterr().out
    assert "released: the noisy vote counts" in out
    assert "released: only the argmax (what PATE publishes)" in out


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_reports_are_written(tmp_path, capsys, option):
    path = tmp_path / f"reproduce.{option[2:]}"
    assert main(["reproduce", option, str(path)]) == 0
    text = path.read_text()
    assert "ghazi2021-lp1st-fashion-mnist-eps1" in text
    assert "simplified Inception" in text and "40 epochs per stage" in text  # model, recipe


def test_warm_computes_the_reproduce_runs_of_its_dataset(monkeypatch):
    figure = published_figures()[0]
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "epsilon": 0.123}))
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    assert dataset_configs("digits") == paper_configs(stand_in)
    asked = []

    def record(dataset, cache_dir, progress, *, extra, until_pages=False, planned=None):
        asked.append(warm_tasks(dataset, extra))
        raise SystemExit(0)  # enough: what it would compute is known

    monkeypatch.setattr("labeldp_core.cli.warm.run_warm", record)
    with pytest.raises(SystemExit):
        main(["warm", "--dataset", "digits"])
    (tasks,) = asked
    assert set(paper_configs(stand_in)) <= {task.config for task in tasks}


def _free_rows(figures):
    return [f for f in figures if f.table == "free-accuracy"]


def test_free_accuracy_rows_quote_the_issue_41_papers_and_compare_gains_on_fashion_mnist():
    # Das et al. (consensus retraining) and Malek et al. (PATE-FM) publish on CIFAR only.
    rows = _free_rows(published_figures())
    das = {(f.dataset, f.epsilon): (f.before, f.value) for f in rows if f.id.startswith("das")}
    assert das == {
        ("cifar-10", 1.0): (0.5778, 0.6384),
        ("cifar-10", 2.0): (0.7906, 0.8331),
        ("cifar-100", 3.0): (0.2353, 0.2998),
    }
    pate = {f.epsilon: (f.before, f.value) for f in rows if f.id.startswith("malek")}
    assert pate == {0.18: (None, 0.734), 0.29: (None, 0.869), 1.6: (None, 0.937)}
    for figure in rows:
        assert not figure.same_dataset and figure.run_dataset == "fashion-mnist"
        assert figure.ours_without is not None  # a row on another dataset compares gains only
        assert {c.dataset for c in paper_configs(figure) + without_configs(figure)} == {
            "fashion-mnist"
        }
        assert "search tool" in figure.quoted_from  # where each figure was read


def _stand_in_gain(figure, **changes):
    ours = {"mechanism": "rr", "settings": {"model": "logistic", "consensus": 1}}
    without = {"settings": {"model": "logistic", "consensus": 0}}
    fields = {"ours": ours, "ours_without": without, "our_dataset": "digits"} | changes
    return type(figure)(**(vars(figure) | fields))


def test_a_row_on_another_dataset_sets_our_gain_never_our_accuracy_beside_theirs(
    cache, monkeypatch, instant_training, tmp_path, capsys
):
    # Theirs is on CIFAR-10, ours on digits: the row must not put our digits accuracy in the
    # "ours" column beside their CIFAR figure, in the rows, the text, the CSV or the gap sentence.
    figure = _free_rows(published_figures())[0]
    stand_in = _stand_in_gain(figure)
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    (row,) = paper_rows(cache)
    assert row["computed_seeds"] == 0 and "not computed yet" in paper_line(row)
    (row,) = paper_rows(cache, compute=True)
    assert row["computed_seeds"] == row["gain_seeds"] == 3
    assert all(row[key] is None for key in ("ours", "ours_min", "ours_max", "our_retention"))
    with_it = [lookup(c, cache).score for c in paper_configs(stand_in)]
    without = [lookup(c, cache).score for c in without_configs(stand_in)]
    gains = [w - wo for w, wo in zip(with_it, without, strict=True)]
    assert row["our_gain"] == pytest.approx(np.mean(gains))
    assert (row["our_gain_min"], row["our_gain_max"]) == (min(gains), max(gains))
    assert row["their_gain"] == pytest.approx(figure.value - figure.before)
    assert row["our_dataset"] == "digits" and row["dataset"] == "cifar-10"
    assert row["our_change"] == "consensus=1 against consensus=0"
    assert row["comparison"].startswith("gains only: theirs on cifar-10, ours on digits")
    line = paper_line(row)
    assert "on cifar-10" in line and "ours on digits, a different dataset" in line
    assert f"ours {row['our_with']:.3f}" not in line  # our accuracy is never "ours" beside theirs
    assert f"{row['our_gain']:+.3f}" in line and f"{row['their_gain']:+.3f}" in line
    assert gap_sentence([row], "cifar-10").startswith("No published figure on cifar-10")
    assert gap_sentence([row], "digits").startswith("No published figure on digits")
    assert main(["reproduce", "--csv", str(tmp_path / "r.csv")]) == 0
    (written,) = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert written["ours"] == "" and written["our_dataset"] == "digits"
    assert float(written["our_gain"]) == pytest.approx(row["our_gain"])
    assert "ours on digits, a different dataset" in capsys.readouterr().out


def test_a_gain_row_on_the_paper_dataset_keeps_our_accuracy_and_adds_the_gain(
    cache, monkeypatch, instant_training
):
    figure = _free_rows(published_figures())[0]
    stand_in = _stand_in_gain(figure, dataset="digits", our_dataset=None)
    monkeypatch.setattr("labeldp_core.services.reproduce.published_figures", lambda: [stand_in])
    (row,) = paper_rows(cache, compute=True)
    assert row["computed_seeds"] == row["gain_seeds"] == 3
    assert row["ours"] == pytest.approx(row["our_with"])  # the same runs, the same dataset
    assert row["our_gain"] == pytest.approx(row["our_with"] - row["our_without"])
    line = paper_line(row)
    assert f"ours {row['ours']:.3f}" in line and "our gain of consensus=1" in line
    assert dataset_configs("digits") == paper_configs(stand_in) + without_configs(stand_in)


def test_warm_leaves_out_the_rows_on_another_dataset_and_the_note_says_what_fills_them(cache):
    free = _free_rows(published_figures())
    warmed = set(dataset_configs("fashion-mnist"))
    assert not warmed & {c for f in free for c in paper_configs(f) + without_configs(f)}
    note = fill_instructions(paper_rows(cache))
    assert f"{len(free)} of them set a setting's gain on fashion-mnist" in note
    assert "warm --dataset cifar-10" not in note and "warm does not run those" in note


def test_one_computed_seed_is_said_in_the_singular():
    from labeldp_core.services.reproduce import _our_accuracy

    row = {"computed_seeds": 1, "ours": 0.8128, "ours_min": 0.8128, "ours_max": 0.8128}
    assert _our_accuracy(row).endswith("(0.813-0.813, 1 seed)")
    assert _our_accuracy(row | {"computed_seeds": 3}).endswith(", 3 seeds)")
