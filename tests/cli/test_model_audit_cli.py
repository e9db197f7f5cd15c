import json
import sys

import pytest

from labeldp_core.__main__ import main
from labeldp_core.model_audit import training_run
from tests.model_audit.stand_in import stored

QUICK = ["--dataset", "digits", "--epsilon", "1", "--epochs", "3", "--set", "model=logistic"]


def test_the_model_audit_prints_the_claim_the_controls_and_the_verdict(capsys, monkeypatch):
    assert main(["audit", "rr", "--model", *QUICK]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith(
        "rr on digits, trained model, epsilon 1: 287 crafted canaries, guesses on the 50% most "
        "confident"
    )
    assert text[1].startswith("  mechanism (run at 1): ")
    assert text[2].startswith("  non-private control (no privacy): ")
    assert text[3].startswith("  2x budget control (run at 2): ")
    assert text[4].startswith("  verdict: ")
    # A second call reads the cache: nothing trains.
    monkeypatch.setattr(training_run, "_train", lambda *args: pytest.fail("trained again"))
    assert main(["audit", "rr", "--model", *QUICK, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mechanism"] == "rr" and report["canaries"] == 287
    assert [c["role"] for c in report["controls"]] == ["non-private", "2x budget"]
    assert report["canary_kind"] == "crafted" and report["guess_share"] == 0.5
    assert report["audited"]["trials"] == 144  # guesses on half the canaries, rounded up
    assert set(report["power"]) == {"non-private", "2x budget"}
    assert report["verdict"] == text[4].removeprefix("  verdict: ")


def test_a_model_that_gives_its_canaries_away_exits_1(capsys, monkeypatch):
    monkeypatch.setattr(
        training_run, "_train", lambda _, drawn, *rest: stored(drawn, 287) | {"test_score": 0.9}
    )
    assert main(["audit", "rr", "--model", *QUICK, "--canaries", "287", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["violates"] is True and report["verdict"].startswith("VIOLATES")


def test_the_release_audit_is_unchanged_without_model(capsys):
    assert main(["audit", "rr", "--epsilon", "1", "--trials", "2000", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["trials"] == 2000 and report["results"]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["audit", "rr", "--model", "--epsilon", "1"], "needs --dataset"),
        (["audit", "rr", "--model", *QUICK, "--trials", "10"], "takes --canaries N"),
        (["audit", "rr", "--model", *QUICK, "--canary-kind", "odd"], "flipped, crafted"),
        (["audit", "rr", "--model", *QUICK, "--guess-share", "0.01"], "guess_share must lie"),
        (["audit", "rr", "--model", *QUICK, "--guess-share", "0"], "guess_share must lie"),
        (["audit", "rr", "--epsilon", "1", "--canary-kind", "crafted"], "add --model"),
        (["audit", "rr", "--model", *QUICK, "--workers", "0"], "--workers must be"),
        (["audit", "rr", "--model", *QUICK, "--workers", "2", "--scheduler", "x:1"], "not both"),
        (["audit", "rr", "--epsilon", "1", "--dataset", "digits"], "add --model"),
        (["audit", "rr", "--epsilon", "1", "--canaries", "200"], "add --model"),
        (["audit", "rr", "--model", *QUICK, "--canaries", "5"], "canaries must lie in 100..718"),
        (["audit", "rr", "--model", *QUICK, "--canaries", "719"], "canaries must lie"),
        (["audit", "rr", "--model", *QUICK, "--canaries", "many"], "invalid int"),
        (["audit", "rr", "--model", "--dataset", "cifar", "--epsilon", "1"], "unknown dataset"),
        (["audit", "rr", "--model", "--dataset", "digits", "--epsilon", "0"], "greater than 0"),
        (["audit", "rr", "--model", "--dataset", "digits", "--epsilon", "60"], "at most 50"),
        (["audit", "rr", "--model", *QUICK, "--set", "x=1"], "unknown setting"),
        (["audit", "rr", "--model", *QUICK, "--epochs", "0"], "epochs must"),
        (["audit", "laplace-regression", "--model", *QUICK[:4]], "classifier"),
        (["audit", "softmax-laplace", "--model", *QUICK[:4]], "not its training labels"),
    ],
)
def test_bad_model_audit_input_exits_2_with_one_error_line(args, match, capsys, monkeypatch):
    monkeypatch.setattr(training_run, "_train", lambda *args: pytest.fail("trained"))
    with pytest.raises(SystemExit) as stopped:
        sys.exit(main(args))
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert match in lines[0]
