"""The answer in words (issue 53): one headline per privacy unit, the nearest when none reaches."""

from dataclasses import replace

from labeldp_core.choosing.answer import choose
from labeldp_core.choosing.choice import Choice
from labeldp_core.choosing.headline import headlines, nearest
from labeldp_core.choosing.target import make_target
from tests.choosing.test_answer import RR, _curve

#: Example-level: the mean 0.6 at ε 1, 0.9 at ε 4 (doubled for one label).
SGD = _curve("dpsgd", "example", {1.0: (0.55, 0.6, 0.65), 4.0: (0.85, 0.9, 0.95)})
#: Example-level and weak: the mean 0.5 at ε 1, 0.7 at ε 4, still rising.
WEAK = _curve("dpsgd", "example", {1.0: (0.45, 0.5, 0.55), 4.0: (0.65, 0.7, 0.75)})


def _choice(target, curves) -> Choice:
    return Choice("digits", target, tuple(choose(curves, target)), curves=tuple(curves))


def test_each_unit_gets_one_headline_with_its_best_answer_and_the_seeds_spread():
    said = headlines(_choice(make_target("accuracy", 0.8), [RR, SGD]))
    assert [h.answer.mechanism for h in said] == ["rr", "dpsgd"]
    label, example = (h.text for h in said)
    assert label.startswith("**Label DP (protects one training label)**: ")
    assert (
        "Randomized response reaches test accuracy 0.800 at ε ≈ 8, between ≈ 5.66 and ≈ 11.3 over "
        "the seeds." in label
    )
    assert example.startswith("**Example-level DP (protects one whole example)**: ")
    assert "at ε ≈ 2.52 (ε ≈ 5.04 for one label)" in example


def test_a_seed_beyond_the_computed_range_and_an_answer_at_the_smallest_epsilon_are_said_so():
    (partly,) = headlines(_choice(make_target("accuracy", 0.88), [RR]))
    assert "the best seed at ε ≈ 9.85, the worst not up to ε 16." in partly.text
    (early,) = headlines(_choice(make_target("accuracy", 0.4), [RR]))
    assert "at ε ≤ 1, the smallest computed" in early.text


def test_a_unit_that_reaches_nothing_says_so_with_its_best_score():
    (said,) = headlines(_choice(make_target("accuracy", 0.97), [RR]))
    assert said.answer is None
    assert "no mechanism reaches test accuracy 0.970 at any computed ε" in said.text
    assert "the best, Randomized response, has test accuracy 0.900 at ε 16, its largest." in (
        said.text
    )


def test_nothing_reached_offers_a_lower_target_another_unit_and_a_still_rising_curve():
    target = make_target("accuracy", 0.8, "example")
    other = _choice(replace(target, unit="label"), [RR, WEAK])
    lower, unit, larger = nearest(_choice(target, [WEAK]), other)
    assert lower.text.startswith(
        "A lower target: DP-SGD baseline reaches test accuracy 0.700 at ε 4"
    )
    assert lower.answer.threshold == 0.7
    assert unit.text.startswith("Another privacy unit: Randomized response reaches test ")
    assert unit.text.endswith(
        "; but it protects one training label, not a whole example (its "
        "features, or whether it is in the data)."
    )
    assert unit.answer.mechanism == "rr"
    assert larger.answer is None
    assert larger.text.startswith("A larger ε: DP-SGD baseline's test accuracy still rises")
    assert "(0.500 at ε 1, 0.700 at ε 4)" in larger.text


def test_a_lower_mse_or_points_target_rounds_away_from_what_is_asked():
    mse = _curve("laplace-regression", "label", {1.0: (4.0,), 10.0: (2.34,)}, "test MSE", 0.5)
    (lower, _) = nearest(_choice(make_target("mse", 1.0), [mse]))
    assert lower.answer.threshold == 2.4  # the best MSE, 2.34, rounded up to two digits
    (points, _) = nearest(_choice(make_target("within", 1), [RR]))  # clean 0.95, best 0.9
    assert "5 points below the clean model" in points.text


def test_an_answer_that_reaches_needs_no_nearest():
    assert nearest(_choice(make_target("accuracy", 0.8), [RR])) == []
