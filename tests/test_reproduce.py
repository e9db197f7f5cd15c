"""`reproduce`: published figures beside ours, and the seeds' claimed vs true epsilons."""

import json

import pytest

from labeldp_core.__main__ import main
from labeldp_core.experiments import MECHANISMS
from labeldp_core.reproduce import (
    dataset_configs,
    lesson_rows,
    paper_configs,
    paper_rows,
    published_figures,
)


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
    assert len(report["lessons"]) == 3


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
    for row in lesson_rows(cache):
        assert row["true_epsilon"] > row["claimed_epsilon"]
        assert row["claimed_epsilon"] < row["audited_lower_bound"] <= row["true_epsilon"] + 0.05


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_reports_are_written(tmp_path, capsys, option):
    path = tmp_path / f"reproduce.{option[2:]}"
    assert main(["reproduce", option, str(path)]) == 0
    text = path.read_text()
    assert "ghazi2021-lp1st-eps1" in text


def test_warm_computes_the_reproduce_runs_of_its_dataset(monkeypatch, capsys):
    figure = published_figures()[0]
    stand_in = type(figure)(**(vars(figure) | {"dataset": "digits", "epsilon": 0.123}))
    monkeypatch.setattr("labeldp_core.reproduce.published_figures", lambda: [stand_in])
    assert dataset_configs("digits") == paper_configs(stand_in)
    ran = []

    def record(config, cache, progress):
        ran.append(config)
        raise SystemExit(0)  # enough: the demo points come first, then these

    monkeypatch.setattr("labeldp_core.__main__.demo_configs", lambda dataset: [])
    monkeypatch.setattr("labeldp_core.__main__.run", record)
    with pytest.raises(SystemExit):
        main(["warm", "--dataset", "digits"])
    assert ran == paper_configs(stand_in)[:1]
