import math

import pytest

from labeldp_core.choosing.answer import answer, choose, protection_gap
from labeldp_core.choosing.curves import Curve, CurvePoint
from labeldp_core.choosing.target import make_target


def _curve(mechanism, unit, scores_by_epsilon, metric="test accuracy", baseline=0.95, delta=0.0):
    points = tuple(
        CurvePoint(e, e, delta, tuple(scores), baseline) for e, scores in scores_by_epsilon.items()
    )
    return Curve(mechanism, unit, metric, points)


#: Three seeds; the mean rises 0.5, 0.7, 0.9 and the seeds spread ±0.05 around it.
RR = _curve(
    "rr", "label", {1.0: (0.45, 0.5, 0.55), 4.0: (0.65, 0.7, 0.75), 16.0: (0.85, 0.9, 0.95)}
)


def test_the_answer_is_the_mean_crossing_with_the_seeds_spread_around_it():
    found = answer(RR, make_target("accuracy", 0.8))
    assert found.epsilon == pytest.approx(8.0)  # halfway between 4 and 16 on log ε
    assert found.epsilon_low == pytest.approx(4 * 4 ** (0.05 / 0.2))  # the best seed's line
    assert found.epsilon_high == pytest.approx(4 * 4 ** (0.15 / 0.2))  # the worst seed's line
    assert (found.below, found.above, found.interpolated) == (4.0, 16.0, True)
    assert found.score == pytest.approx(0.8)
    assert (found.score_low, found.score_high) == (pytest.approx(0.75), pytest.approx(0.85))
    assert found.epsilon_spent == pytest.approx(8.0) and found.unit_epsilon == found.epsilon_spent
    assert (found.points, found.seeds, found.neighbours) == (3, 3, "replace-one label")
    assert "interpolated on log ε between the computed ε = 4 and 16" in found.sentence()
    assert "ε spent ≈ 8, replace-one label;" in found.sentence()


def test_with_confidence_the_worst_seed_must_reach_the_target():
    found = answer(RR, make_target("accuracy", 0.8, confident=True))
    assert found.epsilon == pytest.approx(4 * 4 ** (0.15 / 0.2)) == found.epsilon_high
    assert found.score_low == pytest.approx(0.8)


def test_a_target_not_reached_says_up_to_which_epsilon():
    found = answer(RR, make_target("accuracy", 0.92))
    assert not found.reached and found.epsilon is None
    assert found.score == pytest.approx(0.9)
    assert "not reached up to ε = 16, the largest computed" in found.sentence()
    partly = answer(RR, make_target("accuracy", 0.88))
    assert partly.reached and partly.epsilon_high is None
    assert "not reached by every seed up to 16" in partly.sentence()


def test_a_target_met_at_the_smallest_epsilon_claims_nothing_below_it():
    found = answer(RR, make_target("accuracy", 0.4))
    assert (found.epsilon, found.below, found.interpolated) == (1.0, None, False)
    assert "reached already at the smallest computed ε = 1" in found.sentence()


def test_an_mse_target_reads_a_falling_curve():
    curve = _curve("laplace-regression", "label", {1.0: (4.0,), 10.0: (1.0,)}, "test MSE", 0.5)
    found = answer(curve, make_target("mse", 2.5))
    assert found.epsilon == pytest.approx(math.sqrt(10)) and found.score == pytest.approx(2.5)


def test_within_points_of_the_clean_model_uses_the_curves_own_baseline():
    found = answer(RR, make_target("within", 15))  # 0.95 - 0.15 = 0.8
    assert found.threshold == pytest.approx(0.8) and found.epsilon == pytest.approx(8.0)


def test_an_example_level_guarantee_is_doubled_for_a_label_and_label_dp_does_not_cover_an_example():
    sgd = _curve("dpsgd", "example", {1.0: (0.6,), 4.0: (0.9,)}, delta=1e-5)
    found = answer(sgd, make_target("accuracy", 0.6))
    assert found.unit_epsilon == 2.0 and found.unit_delta == pytest.approx((1 + math.e) * 1e-5)
    assert "so ε = 2 (δ = 3.7e-05) for one changed label" in found.sentence()
    assert [a.mechanism for a in choose([RR, sgd], make_target("accuracy", 0.6, "example"))] == [
        "dpsgd"
    ]
    assert protection_gap("example", "label") and protection_gap("label", "output")


def test_answers_come_best_first_in_the_users_unit_the_unreached_last():
    slow = _curve("slow", "label", {1.0: (0.5,), 16.0: (0.81,)})
    sgd = _curve("dpsgd", "example", {1.0: (0.5,), 4.0: (0.9,)})  # 2.9 as example, 5.9 as label
    never = _curve("never", "label", {1.0: (0.5,), 16.0: (0.7,)})
    order = [a.mechanism for a in choose([never, slow, sgd, RR], make_target("accuracy", 0.8))]
    assert order == ["dpsgd", "rr", "slow", "never"]


def test_a_table_row_says_how_each_figure_was_obtained():
    row = answer(RR, make_target("accuracy", 0.8)).row()
    assert (row["smallest ε"], row["seeds' spread"]) == ("≈ 8", "≈ 5.66 to ≈ 11.3")
    assert row["test accuracy"] == "0.800" and row["ε for your unit"] == "≈ 8"
    assert row["privacy unit"] == "replace-one label"
    assert answer(RR, make_target("accuracy", 0.4)).row()["smallest ε"] == "≤ 1"
    missed = answer(RR, make_target("accuracy", 0.92)).row()
    # the mean does not reach it, the best seed does; the worst, if ever, beyond what is computed
    assert (missed["smallest ε"], missed["seeds' spread"]) == (
        "not reached up to 16",
        "≈ 13 to over 16",
    )
    assert answer(RR, make_target("accuracy", 0.96)).row()["seeds' spread"] == ""
    computed = answer(RR, make_target("accuracy", 0.7)).row()  # every seed on a computed ε
    assert (computed["smallest ε"], computed["seeds' spread"]) == ("4", "≈ 2.83 to ≈ 5.66")
