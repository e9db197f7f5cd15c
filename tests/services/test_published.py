"""The citation file's loader: tables' defaults fill their rows, and every row names its setting."""

import json

import pytest

from labeldp_core.services.published import paper_tables, published_figures

TABLE = {
    "id": "t",
    "title": "A paper's table",
    "note": "what a reader must know",
    "defaults": {
        "paper": "Someone. A paper. 2024, arXiv 0000.00000",
        "model": "a CNN",
        "recipe": "SGD, 5 epochs",
        "metric": "test_accuracy",
        "delta": 0.0,
        "privacy_unit": "label",
        "clean_value": None,
        "quoted_from": "the paper, Table 1",
    },
}
ROW = {
    "id": "r",
    "table": "t",
    "where": "Table 1",
    "dataset": "digits",
    "method": "RR",
    "epsilon": 1.0,
    "value": 0.5,
    "ours": {"mechanism": "rr", "settings": {}},
}


def _write(tmp_path, rows, tables=(TABLE,)):
    path = tmp_path / "figures.json"
    path.write_text(json.dumps({"about": "", "tables": list(tables), "rows": rows}))
    return path


def test_a_table_default_fills_a_row_and_a_row_overrides_it(tmp_path):
    path = _write(tmp_path, [ROW, ROW | {"id": "s", "model": "an MLP", "delta": None}])
    first, second = published_figures(path)
    assert (first.model, first.recipe, first.delta) == ("a CNN", "SGD, 5 epochs", 0.0)
    assert (second.model, second.recipe, second.delta) == ("an MLP", "SGD, 5 epochs", None)
    assert [t.title for t in paper_tables(path)] == ["A paper's table"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (ROW | {"table": "nowhere"}, "unknown table"),
        (ROW | {"recipe": ""}, "names no recipe"),
        (ROW | {"model": "", "quoted_from": ""}, "names no model, quoted_from"),
    ],
)
def test_a_row_without_its_setting_or_table_is_refused(tmp_path, row, message):
    with pytest.raises(ValueError, match=message):
        published_figures(_write(tmp_path, [row]))


def test_a_repeated_id_is_refused(tmp_path):
    with pytest.raises(ValueError, match="repeats its id"):
        published_figures(_write(tmp_path, [ROW, ROW]))


GAIN = ROW | {
    "id": "g",
    "dataset": "cifar-10",
    "our_dataset": "digits",
    "before": 0.4,
    "ours": {"mechanism": "rr", "settings": {"consensus": 1}},
    "ours_without": {"settings": {"consensus": 0}},
}


def test_a_gain_row_reads_its_before_and_our_dataset(tmp_path):
    (figure,) = published_figures(_write(tmp_path, [GAIN]))
    assert (figure.before, figure.run_dataset, figure.same_dataset) == (0.4, "digits", False)
    assert figure.ours_without == {"settings": {"consensus": 0}}
    (plain,) = published_figures(_write(tmp_path, [ROW]))
    assert (plain.before, plain.run_dataset, plain.same_dataset) == (None, "digits", True)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        # Our accuracy on another dataset beside theirs would compare nothing: a gain is needed.
        ({k: v for k, v in GAIN.items() if k != "ours_without"}, "must compare gains"),
        (GAIN | {"our_dataset": "cifar-10"}, "repeats the paper's dataset"),
        (GAIN | {"before": 1.5}, "before must be an accuracy"),
        (GAIN | {"before": 0.0}, "before must be an accuracy"),
    ],
)
def test_a_bad_gain_row_is_refused(tmp_path, row, message):
    with pytest.raises(ValueError, match=message):
        published_figures(_write(tmp_path, [row]))
