"""``--dataset file:PATH --label COLUMN`` and ``forget``: your own table on the command line."""

import json
import math

import pytest

from labeldp_core.__main__ import main
from labeldp_core.data.tables import example_table, stored_tables
from tests.data.test_tables import BAD_TABLES

RUN = ["run", "rr", "--epsilon", "1", "--epochs", "1", "--set", "model=logistic", "--json"]


def _one_error_line(capsys, argv: list[str], match: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        raise SystemExit(main(argv))
    captured = capsys.readouterr()
    assert stopped.value.code == 2 and captured.out == "", captured.err
    (line,) = captured.err.splitlines()
    assert line.startswith("error: ") and match in line, line


def test_a_table_runs_and_a_renamed_copy_answers_from_the_cache(tmp_path, capsys):
    first, copy = tmp_path / "wine.csv", tmp_path / "copy of wine.csv"
    first.write_bytes(example_table("wine"))
    copy.write_bytes(first.read_bytes())
    assert main([*RUN, "--dataset", f"file:{first}", "--label", "class"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dataset"].startswith("table-") and result["num_classes"] == 3
    assert result["settings"]["model"] == "logistic" and result["cached"] is False
    assert main([*RUN, "--dataset", f"file:{copy}", "--label", "class"]) == 0
    assert json.loads(capsys.readouterr().out)["cached"] is True


def test_forget_deletes_every_table_made_from_a_file(tmp_path, capsys):
    path = tmp_path / "cancer.csv"
    path.write_bytes(example_table("breast-cancer"))
    assert main([*RUN, "--dataset", f"file:{path}", "--label", "class"]) == 0
    assert main([*RUN, "--dataset", f"file:{path}", "--label", "mean radius"]) == 2  # 456 values
    assert len(stored_tables()) == 1
    capsys.readouterr()
    assert main(["forget", f"file:{path}"]) == 0
    assert "forgot 1 table(s)" in capsys.readouterr().out and stored_tables() == []
    assert main(["forget", f"file:{path}"]) == 0
    assert "no stored table comes from" in capsys.readouterr().out


@pytest.mark.parametrize(("data", "match"), BAD_TABLES.values(), ids=BAD_TABLES)
def test_a_bad_table_exits_2_with_one_error_line(data, match, tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    _one_error_line(capsys, [*RUN, "--dataset", f"file:{path}", "--label", "label"], match)
    assert stored_tables() == []


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--dataset", "file:/nonexistent/t.csv", "--label", "y"], "cannot read /nonexistent"),
        (["--dataset", "file:/nonexistent/t.csv"], "needs --label COLUMN"),
        (["--dataset", "digits", "--label", "y"], "--label applies to --dataset file:PATH only"),
        (["--dataset", "table-0123456789abcdef"], "no table 'table-0123456789abcdef' here"),
        (["--dataset", "table-../../etc"], "not a table dataset id"),
    ],
    ids=["missing-file", "no-label", "label-without-file", "unknown-table", "traversal"],
)
def test_file_options_are_checked(extra, match, capsys):
    _one_error_line(capsys, [*RUN, *extra], match)


def test_a_table_is_refused_on_a_cluster_with_the_fix(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    argv = [
        "sweep",
        "rr",
        "--dataset",
        f"file:{path}",
        "--label",
        "class",
        "--epsilons",
        "1",
        "--workers",
        "1",
    ]
    _one_error_line(capsys, argv, "kept on this machine only")
    assert stored_tables() == []  # refused before the table was prepared and kept


def test_a_numeric_label_runs_a_regression_mechanism_in_its_public_range(tmp_path, capsys):
    from tests.data.test_tables import _ratings

    path = tmp_path / "ratings.csv"
    path.write_bytes(_ratings())
    argv = [
        "run",
        "laplace-regression",
        "--epsilon",
        "2",
        "--epochs",
        "1",
        "--json",
        "--dataset",
        f"file:{path}",
        "--label",
        "rating",
        "--task",
        "regression",
        "--low",
        "1",
        "--high",
        "5",
    ]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    details = result["details"]  # in the label's own units
    assert result["test_mse"] >= 0 and (details["low"], details["high"]) == (1.0, 5.0)
    _one_error_line(capsys, [*argv[:-4], "--low", "5", "--high", "1"], "must hold 2 to 100")
    _one_error_line(capsys, [*RUN, "--dataset", "digits", "--low", "1"], "--low, --high,")
    _one_error_line(capsys, [*RUN, "--dataset", "digits", "--grid", "9"], "--grid and --classes")


def test_numbers_that_are_not_whole_run_on_a_public_grid(tmp_path, capsys):
    from tests.data.test_tables import _prices

    path = tmp_path / "prices.csv"
    path.write_bytes(_prices())
    argv = [
        "run",
        "rr-bins",
        "--epsilon",
        "2",
        "--epochs",
        "1",
        "--json",
        "--dataset",
        f"file:{path}",
        "--label",
        "price",
        "--task",
        "regression",
        "--low",
        "0.5",
        "--high",
        "20.5",
        "--grid",
        "41",
    ]
    assert main(argv) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["num_classes"] == 41 and result["epsilon_spent"] <= 2.0
    assert max(result["details"]["bin_outputs"]) <= 20.5  # values, in the label's units
    assert "snapped to the nearest of 41 values 0.5 apart" in captured.err
    _one_error_line(capsys, argv[:-2], "not whole: give a grid")
    _one_error_line(capsys, [*argv[:-1], "1"], "grid must be a whole number of values in 2..100")


def test_warm_fills_a_tables_demo_points_into_its_own_cache(tmp_path, monkeypatch, capsys):
    from labeldp_core.cache import ResultCache
    from labeldp_core.data.table_results import results_cache
    from labeldp_core.experiments import lookup
    from labeldp_core.experiments.demo import demo_configs

    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))

    def few(dataset: str) -> list:
        return demo_configs(dataset, ["rr"], seeds=[0], epochs=1, variants=False)[:2]

    monkeypatch.setattr(
        "labeldp_core.services.warm.demo_configs", lambda dataset, **options: few(dataset)
    )
    monkeypatch.setattr("labeldp_core.services.warm.app_audit_points", lambda: [])
    assert main(["warm", "--dataset", f"file:{path}", "--label", "class"]) == 0
    (info,) = stored_tables()
    told = capsys.readouterr().err
    assert f"2 demo points and audit cases for {info.id} are cached (2 of them)" in told
    cache = ResultCache()
    assert all(lookup(config, cache) is not None for config in few(info.id))
    assert results_cache(cache, info.id).directory.parent.name == info.id
    _one_error_line(capsys, ["warm", "--dataset", f"file:{path}"], "needs --label COLUMN")
    _one_error_line(capsys, ["warm", "--dataset", "digits", "--label", "x"], "--label applies")


def test_classes_known_in_public_are_given_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    argv = [*RUN, "--dataset", f"file:{path}", "--label", "class"]
    assert main([*argv, "--classes", "class_2,class_1,class_0"]) == 0
    captured = capsys.readouterr()
    assert "not protected" not in captured.err
    (info,) = stored_tables()
    assert info.class_names == ("class_2", "class_1", "class_0")
    assert json.loads(captured.out)["dataset"] == info.id
    _one_error_line(capsys, [*argv, "--classes", "class_0,class_1"], "not among the classes")
    _one_error_line(capsys, [*RUN, "--dataset", "digits", "--classes", "a,b"], "--classes apply")


def test_warm_on_a_table_smaller_than_the_published_batches_trains_every_poisson_point(
    tmp_path, monkeypatch, capsys
):
    """A table of 178 rows (142 to train on): LabelDP-Pro's 2,048 and DP-SGD's batches shrink.

    The batch is read from the table's size (public under label DP), and each run's accounting
    uses the batch it trained with: its sample rate is batch / n and its steps epochs x n / batch.
    """
    from labeldp_core.cache import ResultCache
    from labeldp_core.experiments import lookup
    from labeldp_core.experiments.demo import demo_configs

    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))

    def first_of_each(dataset: str, **options) -> list:
        configs = demo_configs(dataset, ["dpsgd", "labeldp-pro"], seeds=[0], epochs=1)
        return list({(c.mechanism, c.settings): c for c in reversed(configs)}.values())

    monkeypatch.setattr("labeldp_core.services.warm.demo_configs", first_of_each)
    monkeypatch.setattr("labeldp_core.services.warm.app_audit_points", lambda: [])
    assert main(["warm", "--dataset", f"file:{path}", "--label", "class"]) == 0, (
        capsys.readouterr().err
    )
    (info,) = stored_tables()
    cache = ResultCache()
    results = [lookup(config, cache) for config in first_of_each(info.id)]
    assert {r.mechanism for r in results} == {"dpsgd", "labeldp-pro"} and len(results) == 3
    for result in results:
        batch, n = result.settings["batch"], result.n_train
        assert 1 <= batch <= n <= info.n_train, (result.mechanism, batch, n)
        assert result.details["sample_rate"] == batch / n
        assert result.details["steps"] == math.ceil(n / batch)  # one epoch
        assert result.epsilon_spent <= result.epsilon
