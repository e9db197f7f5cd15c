import json
import subprocess
import sys
from pathlib import Path

import pytest

from labeldp_core.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "labeldp_core", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_run_prints_json_then_answers_from_the_cache():
    args = ("run", "rr", "--dataset", "digits", "--epsilon", "1", "--epochs", "2", "--json")
    first = _cli(*args)
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["mechanism"] == "rr" and result["cached"] is False
    assert result["privacy_unit"] == "label" and result["epsilon_spent"] == 1.0
    second = _cli(*args)
    assert second.returncode == 0
    again = json.loads(second.stdout)
    assert again["cached"] is True
    assert again["test_accuracy"] == result["test_accuracy"]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["run", "rr", "--dataset", "digits", "--epsilon", "0"], "greater than 0"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "-1"], "greater than 0"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "nan"], "finite"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "inf"], "finite"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "one"], "invalid float"),
        (["run", "magic", "--dataset", "digits", "--epsilon", "1"], "unknown mechanism"),
        (["run", "rr", "--dataset", "cifar", "--epsilon", "1"], "unknown dataset"),
        (["run", "rr", "--dataset", "mnist", "--epsilon", "1"], "not on this machine"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "1", "--set", "model"], "KEY=VALUE"),
        (["run", "rr", "--dataset", "digits", "--epsilon", "1", "--set", "x=1"], "unknown setting"),
        (["run", "rr", "--epsilon", "1"], "required"),
        (["sweep", "rr", "--dataset", "digits", "--epsilons"], "expected at least one"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_error_line(args, match, capsys, no_local_mnist):
    with pytest.raises(SystemExit) as stopped:
        sys.exit(main(args))
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert match in lines[0]
    assert "Traceback" not in err


def test_bad_input_from_a_real_process_has_no_traceback():
    completed = _cli("run", "rr", "--dataset", "digits", "--epsilon", "nan")
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and "Traceback" not in completed.stderr


def test_list_json_names_mechanisms_and_datasets(capsys):
    assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert "rr" in {m["id"] for m in listing["mechanisms"]}
    assert {d["id"] for d in listing["datasets"]} == {
        "digits",
        "mnist-5k",
        "fashion-mnist",
        "mnist",
    }
    defaults = {d["id"]: d["training_defaults"] for d in listing["datasets"]}
    assert defaults["digits"] == {"batch_size": 128, "learning_rate": 4e-3}
    assert defaults["fashion-mnist"] == {"batch_size": 256, "learning_rate": 3e-3}


def test_sweep_writes_csv_and_json(tmp_path, capsys):
    path = tmp_path / "sweep.csv"
    code = main(
        [
            "sweep",
            "rr",
            "--dataset",
            "digits",
            "--epsilons",
            "1",
            "4",
            "--epochs",
            "1",
            "--seeds",
            "0",
            "1",
            "--csv",
            str(path),
            "--json",
        ]
    )
    assert code == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["epsilon"], r["seed"]) for r in results] == [(1.0, 0), (1.0, 1), (4.0, 0), (4.0, 1)]
    rows = path.read_text().strip().splitlines()
    assert rows[0].startswith("mechanism,dataset,seed,epsilon") and len(rows) == 5


def test_line_progress_repeats_a_long_stage_every_few_seconds(monkeypatch, capsys):
    from labeldp_core.cli import shared as cli

    clock = iter([0.0, 1.0, 2.0, 12.5, 13.0, 14.0])
    monkeypatch.setattr(cli.time, "monotonic", lambda: next(clock))
    show = cli.stderr_lines()  # reads the clock once (0.0)
    show(0.1, "DP-SGD: epoch 1/40")  # 1.0: a new stage
    show(0.2, "DP-SGD: epoch 2/40")  # 2.0: same stage, too soon
    show(0.3, "DP-SGD: epoch 3/40")  # 12.5: same stage, 11.5 s later
    show(0.4, "DP-SGD: epoch 4/40")  # 13.0: too soon again
    show(0.9, "done")  # 14.0: a new stage
    assert capsys.readouterr().err.splitlines() == [
        "[ 10.0%] DP-SGD",
        "[ 30.0%] DP-SGD: epoch 3/40",
        "[ 90.0%] done",
    ]
