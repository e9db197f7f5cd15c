"""The command line's bad inputs: exit status 2, exactly one line on stderr starting with
``error:``, no traceback. Settings are enumerated from every mechanism's spec, so a new
mechanism's settings are checked without a new row."""

import subprocess
import sys
from pathlib import Path

import pytest

from labeldp_core.__main__ import main
from labeldp_core.engine.spec import Setting
from labeldp_core.experiments import MECHANISMS

ROOT = Path(__file__).resolve().parents[2]


def _bad_setting_values(name: str, setting: Setting) -> list[tuple[str, str]]:
    """(value, label) pairs that ``--set name=value`` must refuse."""
    kind = type(setting.default)
    values = []
    if setting.choices:
        values.append(("not-a-choice", "choice"))
    if kind is bool:
        values.append(("maybe", "not-bool"))
    if kind in (int, float):
        values.append(("abc", "not-a-number"))
    if kind is int:
        values.append(("1.5", "fraction"))
    if kind is float:
        values += [("nan", "nan"), ("inf", "inf")]
    if setting.minimum is not None:
        values.append((f"{kind(setting.minimum - 1)}", "below-minimum"))
    if setting.maximum is not None:
        values.append((f"{kind(setting.maximum + 1)}", "above-maximum"))
    return values


def _setting_cases() -> list:
    return [
        pytest.param(
            ["run", mechanism, "--dataset", "digits", "--epsilon", "1", "--set", f"{name}={value}"],
            f"setting {name}",
            id=f"run-{mechanism}-{name}-{label}",
        )
        for mechanism, spec in MECHANISMS.items()
        for name, setting in spec.all_settings().items()
        for value, label in _bad_setting_values(name, setting)
    ]


def _epsilon_cases() -> list:
    # "-inf" would read as an option, so argparse refuses it first; "--epsilon=-inf" is below.
    bad = [
        ("0", "greater than 0"),
        ("-1", "greater than 0"),
        ("nan", "finite"),
        ("inf", "finite"),
        ("1e9", "too large"),
        ("1e400", "finite"),
        ("one", "invalid float"),
    ]
    cases = [
        pytest.param(
            ["run", mechanism, "--dataset", "digits", "--epsilon", value],
            match,
            id=f"run-{mechanism}-epsilon={value}",
        )
        for mechanism in MECHANISMS
        for value, match in bad
    ]
    cases += [
        pytest.param(["audit", "rr", "--epsilon", value], match, id=f"audit-epsilon={value}")
        for value, match in bad
    ]
    cases += [
        pytest.param(
            ["sweep", "rr", "--dataset", "digits", "--epsilons", "1", value],
            match,
            id=f"sweep-epsilons=1,{value}",
        )
        for value, match in bad
    ]
    return cases


RUN = ["run", "rr", "--dataset", "digits", "--epsilon", "1"]
SWEEP = ["sweep", "rr", "--dataset", "digits", "--epsilons", "1"]
CLI_CASES = [
    # No or unknown subcommand.
    pytest.param([], "required: command", id="no-command"),
    pytest.param(["frobnicate"], "invalid choice", id="unknown-command"),
    # list
    pytest.param(["list", "--bogus"], "unrecognized arguments", id="list-unknown-option"),
    pytest.param(["list", "extra"], "unrecognized arguments", id="list-extra-argument"),
    # run
    pytest.param(
        ["run", "magic", "--dataset", "digits", "--epsilon", "1"],
        "unknown mechanism",
        id="run-unknown-mechanism",
    ),
    pytest.param(
        ["run", "rr", "--dataset", "cifar", "--epsilon", "1"],
        "unknown dataset",
        id="run-unknown-dataset",
    ),
    pytest.param(
        ["run", "rr", "--dataset", "mnist", "--epsilon", "1"],
        "not on this machine",
        id="run-missing-dataset",
    ),
    pytest.param(["run", "rr", "--epsilon", "1"], "required: --dataset", id="run-no-dataset"),
    pytest.param(["run", "rr", "--dataset", "digits"], "required: --epsilon", id="run-no-epsilon"),
    pytest.param(
        ["run", "rr", "--dataset", "digits", "--epsilon=-inf"], "finite", id="run-epsilon=-inf"
    ),
    pytest.param([*RUN, "--seed", "-5"], "seed must be", id="run-negative-seed"),
    pytest.param([*RUN, "--seed", "4294967296"], "seed must be", id="run-huge-seed"),
    pytest.param([*RUN, "--seed", "abc"], "invalid int value", id="run-str-seed"),
    pytest.param([*RUN, "--epochs", "0"], "epochs must be", id="run-zero-epochs"),
    pytest.param([*RUN, "--epochs", "-3"], "epochs must be", id="run-negative-epochs"),
    pytest.param([*RUN, "--epochs", "100000"], "epochs must be", id="run-huge-epochs"),
    pytest.param([*RUN, "--epochs", "2.5"], "invalid int value", id="run-fraction-epochs"),
    pytest.param([*RUN, "--set", "model"], "KEY=VALUE", id="run-set-without-value"),
    pytest.param([*RUN, "--set", "=3"], "KEY=VALUE", id="run-set-without-key"),
    pytest.param([*RUN, "--set", "colour=red"], "unknown setting", id="run-unknown-setting"),
    pytest.param(
        ["run", "rr-prior", "--dataset", "digits", "--epsilon", "1", "--set", "prior_epsilon=2"],
        "leaves no budget",
        id="run-rr-prior-budget-overspent",
    ),
    pytest.param(
        [
            "run",
            "dppl-public",
            "--dataset",
            "digits",
            "--epsilon",
            "1",
            "--set",
            "min_score=1.5",
            "--set",
            "max_score=1.0",
        ],
        "min_score < max_score",
        id="run-dppl-public-empty-score-window",
    ),
    # sweep
    pytest.param(
        ["sweep", "rr", "--dataset", "digits", "--epsilons"],
        "expected at least one",
        id="sweep-no-epsilons",
    ),
    pytest.param([*SWEEP, "--seeds"], "expected at least one", id="sweep-no-seeds"),
    pytest.param([*SWEEP, "--seeds", "0", "-1"], "seed must be", id="sweep-negative-seed"),
    pytest.param(
        ["sweep", "magic", "--dataset", "digits", "--epsilons", "1"],
        "unknown mechanism",
        id="sweep-unknown-mechanism",
    ),
    pytest.param(
        [*SWEEP, "--csv", "/nonexistent-folder/out.csv"],
        "does not exist",
        id="sweep-csv-into-missing-folder",
    ),
    pytest.param(
        [*SWEEP, "--html", "/nonexistent-folder/out.html"],
        "does not exist",
        id="sweep-html-into-missing-folder",
    ),
    pytest.param([*SWEEP, "--csv", "."], "is a folder", id="sweep-csv-onto-a-folder"),
    # warm
    pytest.param(["warm", "--dataset", "cifar"], "unknown dataset", id="warm-unknown-dataset"),
    pytest.param(["warm", "--dataset", "mnist"], "not on this machine", id="warm-missing-dataset"),
    pytest.param(["warm", "--grid", "9"], "--classes apply to --dataset", id="warm-stray-grid"),
    pytest.param(["warm", "--grid", "x"], "invalid int value", id="warm-text-grid"),
    pytest.param([*SWEEP, "--low", "a"], "invalid float value", id="sweep-text-low"),
    pytest.param(
        ["warm", "--dataset", "file:/nonexistent/t.csv", "--label", "y"],
        "cannot read /nonexistent/t.csv: No such file",
        id="warm-missing-table",
    ),
    # audit
    pytest.param(
        ["audit", "magic", "--epsilon", "1"], "no audit for mechanism", id="audit-unknown-mechanism"
    ),
    pytest.param(["audit", "rr"], "required: --epsilon", id="audit-no-epsilon"),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "0"], "trials must be", id="audit-zero-trials"
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "-5"],
        "trials must be",
        id="audit-negative-trials",
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "10000000000000"],
        "trials must be at most",
        id="audit-huge-trials",
    ),
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--seed", "-1"], "seed must be", id="audit-negative-seed"
    ),
    # audit --model: the canary audit's options, refused before anything trains
    *[
        pytest.param(
            ["audit", mechanism, "--model", "--dataset", "digits", "--epsilon", "1", *options],
            match,
            id=f"audit-model-{label}",
        )
        for mechanism, options, match, label in (
            ("rr", ["--canaries", "99"], "canaries must lie in 100..718", "too-few-canaries"),
            ("rr", ["--canaries", "719"], "canaries must lie in 100..718", "too-many-canaries"),
            ("rr", ["--canaries=-1"], "canaries must lie in 100..718", "negative-canaries"),
            ("rr", ["--canaries", "1.5"], "invalid int value", "fractional-canaries"),
            ("dppl-mean", ["--canaries", "541"], "canaries must lie in 100..540", "dppl-canaries"),
            ("dppl-topk", ["--set", "imbalance=0.5"], "imbalance", "dppl-bad-imbalance"),
            ("laplace-regression", [], "classifier", "regression"),
            ("softmax-laplace", [], "not its training labels", "output-dp"),
            ("dpsgd", ["--set", "imbalance=10"], "imbalance 1", "dpsgd-label-drawn-subsample"),
            ("magic", [], "unknown mechanism", "unknown-mechanism"),
            ("rr", ["--epsilon", "60"], "must be at most 50, got 60", "control-above-max"),
        )
    ],
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--canaries", "200"], "add --model", id="audit-canaries"
    ),
    # a cluster: checked before one starts, refused at once when no scheduler answers
    *[
        pytest.param([*argv, *option], match, id=f"{argv[0]}-{label}")
        for argv in (SWEEP, ["warm"], ["audit", "rr", "--epsilon", "1"])
        for option, match, label in (
            (["--workers", "0"], "--workers must be a whole number", "zero-workers"),
            (["--workers", "abc"], "--workers must be a whole number", "workers-abc"),
            (["--workers=-2"], "--workers must be a whole number", "negative-workers"),
            (["--workers", "1.5"], "--workers must be a whole number", "fractional-workers"),
            (["--scheduler", "not an address"], "a Dask scheduler's address", "malformed"),
            (["--scheduler", "http://host:8786"], "a Dask scheduler's address", "http"),
            (["--scheduler", "tcp://host:99999"], "a Dask scheduler's address", "bad-port"),
            (["--scheduler", "tcp://127.0.0.1:1"], "no Dask scheduler answered", "unreachable"),
            (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not both", "both"),
        )
    ],
    pytest.param(
        ["audit", "rr", "--epsilon", "1", "--trials", "0", "--workers", "2"],
        "trials must be",
        id="audit-zero-trials-checked-before-the-cluster",
    ),
    pytest.param(
        [*SWEEP, "--set", "model=resnet", "--workers", "2"],
        "setting model",
        id="sweep-bad-setting-checked-before-the-cluster",
    ),
    *_epsilon_cases(),
    *_setting_cases(),
]


def _exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stopped:
        return stopped.code


@pytest.mark.parametrize(("argv", "match"), CLI_CASES)
def test_cli_bad_input_exits_2_with_one_error_line(argv, match, capsys, no_local_mnist):
    status = _exit_status(argv)
    captured = capsys.readouterr()
    assert status == 2, captured.err
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ")
    assert match in lines[0], lines[0]
    assert "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "rr", "--epsilon", "1", "--seed", "-1"],
        ["sweep", "rr", "--dataset", "digits", "--epsilons", "1", "--csv", "/nonexistent/x.csv"],
    ],
    ids=["audit-negative-seed", "sweep-csv-into-missing-folder"],
)
def test_a_real_process_prints_one_error_line_and_no_traceback(argv):
    # Two of the cases that once ended in a traceback (a NumPy error, a missing folder); the
    # in-process matrix above covers the rest, and tests/cli/test_cli.py runs one more real process.
    completed = subprocess.run(
        [sys.executable, "-m", "labeldp_core", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith("error: ")
    assert len(completed.stderr.splitlines()) == 1, completed.stderr
    assert completed.stdout == ""
