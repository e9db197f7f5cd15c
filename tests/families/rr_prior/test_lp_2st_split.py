"""LP-2ST's ``stage1_share``: how much of the training set stage 1 gets, blind to the labels."""

import math

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.rr_prior import lp_2st
from labeldp_core.noise.noise_plans import rr_plan
from tests.families.rr_prior.contexts import digits_context

FAST = {"model": "logistic"}
Y = load_dataset("digits").y_train


@pytest.mark.parametrize(("share", "size"), [(0.3, 431), (0.4, 574), (0.5, 718), (0.7, 1005)])
def test_the_share_sets_stage_1s_size_and_the_parts_cover_the_set_once(share, size):
    first, second = lp_2st.split_halves(1437, 3, share)
    assert size == math.floor(share * 1437)
    assert (len(first), len(second)) == (size, 1437 - size)
    np.testing.assert_array_equal(np.sort(np.concatenate([first, second])), np.arange(1437))


def test_the_default_share_is_the_halves_and_a_smaller_share_takes_a_subset():
    np.testing.assert_array_equal(
        lp_2st.split_halves(1437, 3)[0], lp_2st.split_halves(1437, 3, 0.5)[0]
    )
    # One permutation per seed, cut at another place: part 1 of 0.3 lies inside part 1 of 0.5.
    small, large = lp_2st.split_halves(1437, 3, 0.3)[0], lp_2st.split_halves(1437, 3, 0.5)[0]
    assert np.isin(small, large).all() and len(small) < len(large)


def test_the_edges_give_each_stage_one_example():
    # floor(share * n) would give 0 for 1/49 * 49 in floating point: the size is rounded first.
    assert [lp_2st.stage1_size(n, 1 / n) for n in (49, 98, 1437)] == [1, 1, 1]
    assert lp_2st.stage1_size(1437, 1436 / 1437) == 1436


def _first_part(monkeypatch, directory, y_train, share: float) -> tuple[np.ndarray, dict]:
    """The indices stage 1 released, and the run's details, with digits' labels ``y_train``."""
    seen = []
    real = lp_2st._first_stage

    def spy(ctx, first):
        seen.append(np.array(first))
        return real(ctx, first)

    monkeypatch.setattr(lp_2st, "_first_stage", spy)
    config = make_config("lp-2st", "digits", 1.0, epochs=1, settings=FAST | {"stage1_share": share})
    with digits_context(config, directory, y_train) as ctx:
        outcome = lp_2st.run_lp_2st(config, ctx)
    (first,) = seen
    return first, outcome.details


def test_the_run_splits_by_the_share_without_reading_a_label(monkeypatch, tmp_path):
    first, details = _first_part(monkeypatch, tmp_path / "clean", Y, 0.3)
    np.testing.assert_array_equal(first, lp_2st.split_halves(Y.size, 0, 0.3)[0])
    assert (details["stage1_examples"], details["stage2_examples"]) == (431, Y.size - 431)
    scrambled = (Y + 1 + np.arange(Y.size) % 9) % 10  # every label changed
    first_scrambled, details_scrambled = _first_part(
        monkeypatch, tmp_path / "scrambled", scrambled, 0.3
    )
    np.testing.assert_array_equal(first, first_scrambled)
    assert details_scrambled["stage1_examples"] == 431
    # The labels did reach the run (stage 2's prior learnt them), so the comparison can fail.
    assert details["mean_prior_true_mass"] != details_scrambled["mean_prior_true_mass"]


def test_the_accounting_does_not_depend_on_the_share(cache):
    spent = {
        share: run(
            make_config("lp-2st", "digits", 1.0, epochs=1, settings=FAST | {"stage1_share": share}),
            cache,
        )
        for share in (0.3, 0.5)
    }
    assert {result.epsilon_spent for result in spent.values()} == {rr_plan(1.0, 10).epsilon_spent}
    assert spent[0.3].details["stage1_examples"] == 431
    assert spent[0.5].details["stage1_examples"] == 718


@pytest.mark.parametrize(
    ("share", "empty"), [(0.0, "stage 1"), (0.0005, "stage 1"), (1.0, "stage 2")]
)
def test_a_share_that_leaves_a_stage_empty_is_refused_with_the_fix(share, empty):
    with pytest.raises(InvalidInputError) as raised:
        make_config("lp-2st", "digits", 1.0, settings={"stage1_share": share})
    message = str(raised.value)
    assert f"stage1_share={share:g} leaves {empty} no example" in message
    assert "from 1/1,437 to 1,436/1,437" in message and "stage1_share=0.5" in message


def test_the_command_line_refuses_an_empty_stage_before_any_work(capsys):
    argv = [
        "run",
        "lp-2st",
        "--dataset",
        "digits",
        "--epsilon",
        "1",
        "--set",
        "stage1_share=1",
        "--json",
    ]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "stage1_share=1 leaves stage 2 no example" in captured.err


@pytest.mark.parametrize(("epsilon", "share"), [(0.5, 0.8), (1.0, 0.8), (1.01, 0.3), (2.0, 0.3)])
def test_the_epsilon_rule_gives_stage_1_most_labels_at_small_epsilon(epsilon, share):
    settings = {"stage1_share_rule": "epsilon", "stage1_share": 0.3}
    config = make_config("lp-2st", "digits", epsilon, settings=settings)
    assert lp_2st.stage1_share(config) == share
    fixed = make_config("lp-2st", "digits", epsilon, settings={"stage1_share": 0.3})
    assert lp_2st.stage1_share(fixed) == 0.3  # digits' recipe keeps the share as set


def test_the_epsilon_rule_is_fashion_mnists_recipe_and_the_run_follows_it(monkeypatch, tmp_path):
    assert make_config("lp-2st", "fashion-mnist", 1.0).setting("stage1_share_rule") == "epsilon"
    assert make_config("lp-2st", "digits", 1.0).setting("stage1_share_rule") == "fixed"
    monkeypatch.setitem(FAST, "stage1_share_rule", "epsilon")
    first, details = _first_part(monkeypatch, tmp_path, Y, 0.5)
    assert first.size == details["stage1_examples"] == int(0.8 * Y.size)
