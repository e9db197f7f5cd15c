import json
import sys

import pytest

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.choosing import choice
from tests.choosing.fake_curves import FakeRuns, store_grid


@pytest.fixture
def warmed():
    """The isolated cache with rr's and dpsgd's demo grid (accuracy linear on log2 ε)."""
    cache = ResultCache()
    fake = store_grid(cache, ("rr", "dpsgd"))
    yield fake
    cache.close()


def _choose(capsys, *args):
    status = main(["choose", "--dataset", "digits", *args])
    return status, capsys.readouterr()


def test_choose_prints_the_table_best_first_from_the_cache(warmed, capsys):
    status, out = _choose(capsys, "--target-accuracy", "0.65")
    assert status == 0, out.err
    lines = out.out.splitlines()
    assert lines[0] == (
        "Choose epsilon on digits: test accuracy ≥ 0.65, mean over seeds, label-level privacy"
    )
    assert lines[1].startswith(" 1. rr: ε ≈ 2.83, interpolated on log ε between the computed ε = 2")
    assert lines[2].startswith(" 2. dpsgd: ") and "for one changed label" in lines[2]
    assert any("no accountant here records" in line for line in lines)
    assert any(line.startswith("not considered: softmax-laplace") for line in lines)


def test_choose_json_has_the_answer_and_what_it_rests_on(warmed, capsys):
    status, out = _choose(capsys, "--target-accuracy", "0.65", "--unit", "example", "--json")
    assert status == 0
    found = json.loads(out.out)
    (answer,) = found["answers"]
    assert answer["mechanism"] == "dpsgd" and answer["privacy_unit"] == "example"
    assert answer["epsilon"] == pytest.approx(8.0) and answer["points"] == 7
    assert answer["neighbours"] == "add/remove one example" and answer["reached"] is True


def test_choose_exits_1_when_no_mechanism_reaches_the_target(warmed, capsys):
    status, out = _choose(capsys, "--target-accuracy", "0.9")
    assert status == 1
    assert "not reached up to ε = 8, the largest computed" in out.out
    assert "no mechanism reaches the target on the computed epsilons" in out.out


def test_choose_on_an_empty_cache_says_how_to_fill_it_and_exits_1(capsys):
    status, out = _choose(capsys, "--target-accuracy", "0.9")
    assert status == 1 and "the same command with --compute computes" in out.out
    assert "warm --dataset digits" in out.out


def test_compute_on_a_partial_cache_answers_the_missing_mechanisms_first(
    warmed, capsys, monkeypatch
):
    monkeypatch.setattr(choice, "run", lambda config, cache: warmed.store(config, cache))
    status, out = _choose(capsys, "--target-accuracy", "0.65", "--compute", "--max-trainings", "3")
    assert status == 0 and "note: computed 3 runs now (cached)" in out.out
    # rr's answer stands on its cached grid; the cheapest mechanism without a curve went first.
    assert " 1. rr: ε ≈ 2.83, interpolated on log ε between the computed ε = 2 and 4" in out.out
    assert "[ 33.3%] dppl-mean at ε = 0.3, seed 1 (time not known yet for this ε)" in out.err
    assert "more trainings would answer for dppl-mean, dppl-public, dppl-topk, rr-prior" in out.out


def test_compute_narrows_the_answer_once_every_mechanism_is_answered(warmed, capsys, monkeypatch):
    monkeypatch.setattr(choice, "run", lambda config, cache: warmed.store(config, cache))
    status, out = _choose(capsys, "--target-accuracy", "0.65", "--compute", "--max-trainings", "70")
    assert status == 0 and "more trainings would" not in out.out
    narrowed = " 1. rr: ε ≈ 2.83, interpolated on log ε between the computed ε = 2.6 and 2.83"
    assert narrowed in out.out


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--target-accuracy", "0"], "every model reaches 0"),
        (["--target-accuracy", "nan"], "finite"),
        (["--target-accuracy", "0.99"], "above what the model trained on the true labels"),
        (["--target-accuracy", "0.9", "--unit", "person"], "unknown privacy unit"),
        (["--within-points", "-3"], "P in (0, 100)"),
        (["--target-accuracy", "0.9", "--target-mse", "2"], "not allowed with"),
        ([], "one of the arguments"),
        (["--target-accuracy", "0.9", "--compute", "--max-trainings", "0"], "1..10000"),
    ],
)
def test_bad_input_exits_2_with_one_error_line(warmed, args, match, capsys):
    with pytest.raises(SystemExit) as stopped:
        sys.exit(main(["choose", "--dataset", "digits", *args]))
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0], lines


@pytest.fixture
def trains_into_the_cache(monkeypatch):
    """Every run the choice computes is the closed-form fake, stored in the real (empty) cache."""
    fake = FakeRuns()
    monkeypatch.setattr(choice, "run", lambda config, cache: fake.store(config, cache))
    return fake


def test_compute_on_an_empty_cache_answers_with_intervals_progress_on_stderr(
    trains_into_the_cache, capsys
):
    status, out = _choose(
        capsys, "--target-accuracy", "0.65", "--compute", "--max-trainings", "200", "--json"
    )
    assert status == 0, out.err
    found = json.loads(out.out)  # stdout is the JSON alone; the progress went to stderr
    rr = next(a for a in found["answers"] if a["mechanism"] == "rr")
    assert rr["reached"] and rr["epsilon"] == pytest.approx(2**1.5, rel=1e-9)
    assert rr["epsilon_low"] < rr["epsilon"] < rr["epsilon_high"] and rr["seeds"] == 3
    assert rr["above"] <= 1.1 * rr["below"]  # narrowed by bisection after the coarse grid
    assert found["trainings"] > 0 and found["more_trainings"] == 0
    assert "rr at ε = 1, seed 0" in out.err and "runs computed" in out.err
    again, read = _choose(capsys, "--target-accuracy", "0.65", "--json")  # the cache alone now
    assert again == 0 and json.loads(read.out)["answers"] == found["answers"]


def test_compute_exits_1_when_no_mechanism_reaches_the_target_at_the_largest_epsilon(
    trains_into_the_cache, capsys
):
    status, out = _choose(capsys, "--target-accuracy", "0.9", "--compute", "--max-trainings", "72")
    assert status == 1, out.err  # 12 mechanisms, 2 points of 3 seeds each: all settled
    assert " 1. rr: not reached up to ε = 8, the largest computed" in out.out
    assert "no mechanism reaches the target on the computed epsilons" in out.out


def test_compute_exits_3_when_the_budget_runs_out_before_an_answer(trains_into_the_cache, capsys):
    status, out = _choose(capsys, "--target-accuracy", "0.65", "--compute", "--max-trainings", "5")
    assert status == 3, out.err
    # One point (3 seeds) of the cheapest mechanism fits; its second point and every other
    # mechanism's two coarse points (3 seeds each) are still needed.
    more = 3 + 11 * 6
    assert (
        "the training budget ran out before an answer (3 runs computed): "
        f"{more} more trainings would settle it: run again with --max-trainings {more} (the runs "
        "done are cached)"
    ) in out.out


def test_compute_json_says_what_is_left_in_its_fields_and_on_stderr(trains_into_the_cache, capsys):
    args = ("--target-accuracy", "0.65", "--compute", "--max-trainings", "4", "--json")
    status, out = _choose(capsys, *args)
    found = json.loads(out.out)
    assert status == 3 and found["trainings"] == 3 and found["more_trainings"] == 3 + 11 * 6
    assert found["unsettled"][0] == {"mechanism": "dppl-mean", "trainings": 3}
    assert "note: the training budget ran out before an answer (3 runs computed)" in out.err
    status, out = _choose(capsys, *args)  # the first 3 are cached: the next point fits
    assert status == 0 and json.loads(out.out)["more_trainings"] == 11 * 6
    assert "66 more trainings would answer for dppl-public, dppl-topk, rr, rr-prior" in out.err
