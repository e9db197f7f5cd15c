"""`reproduce`: published figures beside ours, and the seeds' claimed vs true epsilons."""

import json
import math

import pytest

from labeldp_core.__main__ import main
from labeldp_core.accounting.truncated_votes import argmax_loss, vote_counts_loss
from labeldp_core.experiments import MECHANISMS
from labeldp_core.reproduce import (
    dataset_configs,
    lesson_rows,
    paper_configs,
    paper_rows,
    published_figures,
)
from labeldp_core.warm import warm_tasks


def test_the_citation_file_parses_and_every_row_names_its_source():
    figures = published_figures()
    assert len({f.id for f in figures}) == len(figures) >= 5
    for figure in figures:
        assert figure.paper and figure.where and figure.quoted_from
        assert "arXiv" in figure.paper  # a findable reference
        assert 0 < figure.value <= 1 and figure.epsilon > 0
        assert figure.ours["mechanism"] in MECHANISMS
        assert MECHANISMS[figure.ours["mechanism"]].privacy_unit == figure.privacy_unit
        assert all(c.epsilon == figure.epsilon for c in paper_configs(figure))


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
    monkeypatch.setattr("labeldp_core.reproduce.published_figures", lambda: [stand_in])
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
    assert "ghazi2021-lp1st-eps1" in text


def test_warm_computes_the_reproduce_runs_of_its_dataset(monkeypatch):
    figure = published_figures()[0]
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "epsilon": 0.123}))
    monkeypatch.setattr("labeldp_core.reproduce.published_figures", lambda: [stand_in])
    assert dataset_configs("digits") == paper_configs(stand_in)
    asked = []

    def record(dataset, cache_dir, progress, *, extra):
        asked.append(warm_tasks(dataset, extra))
        raise SystemExit(0)  # enough: what it would compute is known

    monkeypatch.setattr("labeldp_core.__main__.run_warm", record)
    with pytest.raises(SystemExit):
        main(["warm", "--dataset", "digits"])
    (tasks,) = asked
    assert set(paper_configs(stand_in)) <= {task.config for task in tasks}
