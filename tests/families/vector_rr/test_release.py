import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from labeldp_core.errors import InvalidInputError
from labeldp_core.families.vector_rr.release import (
    BITS_CHANGED,
    bit_flip_probability,
    bit_plan,
    crossover_classes,
    estimate_variances,
    expected_bits,
    vector_epsilon,
    vector_randomized_response,
    vector_randomized_response_by_plan,
)
from labeldp_core.noise.noise_plans import rr_plan
from labeldp_core.noise.secure_noise import SeededSource

# With fixed seeds the tests are deterministic; each tolerance is Z binomial standard deviations,
# two-sided probability below 1e-6 per comparison for a correct mechanism and an arbitrary seed.
Z = 5.0


def _binomial_tolerance(probability: float, draws: int) -> float:
    return Z * math.sqrt(probability * (1 - probability) / draws)


def _exact_flip(epsilon: float) -> Fraction:
    """The flip probability of the exact coins: m / (D + m)."""
    plan = bit_plan(epsilon)
    return Fraction(plan.flip_weight, plan.denominator + plan.flip_weight)


def test_flip_probability_matches_its_closed_form():
    # f = 1/(1+e^(eps/2)): at eps = 2 ln 9 a bit flips with probability 1/10.
    assert bit_flip_probability(2 * math.log(9)) == pytest.approx(0.1, abs=1e-15)
    for epsilon in (0.01, 0.5, 1.0, 3.0, 8.0):
        expected = 1 / (1 + math.exp(epsilon / 2))
        assert bit_flip_probability(epsilon) == pytest.approx(expected, rel=1e-12)
        # The exact coins flip at most 2^-61 (relative) more often than the closed form.
        assert float(_exact_flip(epsilon)) == pytest.approx(expected, rel=1e-12)
        assert float(_exact_flip(epsilon)) >= expected * (1 - 1e-15)
    assert 0 < bit_flip_probability(100.0) < 1e-21  # the largest epsilon: no overflow


def test_expected_bits_are_affine_in_the_class_probabilities():
    probabilities = np.array([[0.5, 0.3, 0.2], [1.0, 0.0, 0.0]])
    flip = bit_flip_probability(1.0)
    means = expected_bits(1.0, probabilities)
    np.testing.assert_allclose(means, flip + (1 - 2 * flip) * probabilities, rtol=1e-15)
    assert means[1, 0] == pytest.approx(1 - flip) and means[1, 1] == pytest.approx(flip)
    assert (means.argmax(axis=1) == probabilities.argmax(axis=1)).all()  # argmax preserved


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_measured_flip_rates_match_the_closed_form(epsilon):
    k, per_label = 10, 5_000
    labels = np.repeat(np.arange(k), per_label)
    bits = vector_randomized_response(labels, epsilon, k, np.random.default_rng(12345))
    assert bits.shape == (labels.size, k) and bits.dtype == np.uint8
    assert set(np.unique(bits).tolist()) <= {0, 1}
    flip = float(_exact_flip(epsilon))
    true_bit = bits[np.arange(labels.size), labels]
    # The true bit stays 1 with p = 1 - f; every other bit turns 1 with q = f; overall flips f.
    assert np.mean(true_bit) == pytest.approx(1 - flip, abs=_binomial_tolerance(flip, labels.size))
    others = (bits.sum() - true_bit.sum()) / (labels.size * (k - 1))
    assert others == pytest.approx(flip, abs=_binomial_tolerance(flip, labels.size * (k - 1)))
    one_hot = np.eye(k, dtype=np.uint8)[labels]
    assert np.mean(bits != one_hot) == pytest.approx(flip, abs=_binomial_tolerance(flip, bits.size))
    # Each bit k has mean q + (p - q) 1[y = k]: per class, per bit.
    for label in (0, k - 1):
        rows = bits[labels == label].mean(axis=0)
        want = expected_bits(epsilon, np.eye(k)[label])
        assert np.abs(rows - want).max() < _binomial_tolerance(flip, per_label)


def test_bits_are_flipped_independently():
    # Bits 0 and 1 of label 2's vector: both are zeros, so both turn 1 with probability f each,
    # and together with f^2 if independent.
    n = 200_000
    bits = vector_randomized_response(np.full(n, 2), 1.0, 5, np.random.default_rng(3))
    flip = float(_exact_flip(1.0))
    both = np.mean(bits[:, 0] & bits[:, 1])
    assert both == pytest.approx(flip**2, abs=_binomial_tolerance(flip**2, n))


def test_the_same_test_catches_bits_flipped_at_the_wrong_rate():
    # The flip-rate check above has power: each bit flipped at epsilon (not epsilon/2) fails it.
    k, n = 10, 50_000
    labels = np.arange(n) % k
    bits = vector_randomized_response(labels, 2.0, k, np.random.default_rng(12345))
    flip = float(_exact_flip(1.0))
    measured = np.mean(bits != np.eye(k, dtype=np.uint8)[labels])
    assert abs(measured - flip) > _binomial_tolerance(flip, bits.size)


def _vector_probability(bits: tuple[int, ...], label: int, keep: Fraction) -> Fraction:
    """P(released vector = bits | label) for the exact coins, in exact arithmetic."""
    total = Fraction(1)
    for k, bit in enumerate(bits):
        total *= keep if bit == (k == label) else 1 - keep
    return total


@pytest.mark.parametrize("epsilon", [0.25, 1.0, 4.0, 30.0])
def test_the_vector_is_exactly_epsilon_label_dp_by_two_bits(epsilon):
    # Every output of K = 4 bits under every pair of labels: the largest ratio is (D/m)^2,
    # reached when the two labels' bits differ in the likely direction; its log is what the
    # release reports, and at most epsilon.
    plan = bit_plan(epsilon)
    keep = Fraction(plan.denominator, plan.denominator + plan.flip_weight)
    k = 4
    worst = Fraction(0)
    for bits in itertools.product((0, 1), repeat=k):
        for a, b in itertools.permutations(range(k), 2):
            ratio = _vector_probability(bits, a, keep) / _vector_probability(bits, b, keep)
            worst = max(worst, ratio)
    assert worst == Fraction(plan.denominator, plan.flip_weight) ** BITS_CHANGED
    spent = vector_epsilon(plan)
    assert spent <= epsilon  # exactly, in floating point
    assert math.log(worst) <= spent and spent == pytest.approx(math.log(worst), rel=1e-15)
    assert spent == pytest.approx(epsilon, rel=1e-9) or epsilon > 2 * math.log(plan.denominator)


def test_one_bit_at_epsilon_would_spend_twice_epsilon():
    # The two-bit argument matters: the same coins at epsilon per bit spend 2 epsilon.
    per_bit = rr_plan(1.0, 2)
    assert vector_epsilon(per_bit) == pytest.approx(2.0, rel=1e-12)
    assert vector_epsilon(bit_plan(1.0)) <= 1.0


@pytest.mark.parametrize("epsilon", [1e-9, 0.1, 1.0, 7.3, 50.0, 100.0])
def test_epsilon_spent_never_exceeds_epsilon(epsilon):
    assert vector_epsilon(bit_plan(epsilon)) <= epsilon


def test_secure_mode_draws_no_generator_and_matches_the_closed_form():
    k, n = 10, 20_000
    labels = np.arange(n) % k
    bits = vector_randomized_response(labels, 1.0, k, None, noise="secure")
    flip = float(_exact_flip(1.0))
    assert np.mean(bits != np.eye(k, dtype=np.uint8)[labels]) == pytest.approx(
        flip, abs=_binomial_tolerance(flip, bits.size)
    )
    assert bit_plan(1.0, "secure").secure and vector_epsilon(bit_plan(1.0, "secure")) <= 1.0
    # A seeded source replays the secure sampler exactly (tests only).
    first = vector_randomized_response(
        labels[:50], 1.0, k, None, noise="secure", source=SeededSource(4)
    )
    again = vector_randomized_response(
        labels[:50], 1.0, k, None, noise="secure", source=SeededSource(4)
    )
    np.testing.assert_array_equal(first, again)
    with pytest.raises(InvalidInputError, match=r"rng must be a numpy\.random\.Generator"):
        vector_randomized_response(labels, 1.0, k, 0)


def test_same_seed_same_output():
    labels = np.arange(10).repeat(10)
    first = vector_randomized_response(labels, 1.0, 10, np.random.default_rng(7))
    second = vector_randomized_response(labels, 1.0, 10, np.random.default_rng(7))
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize(
    ("labels", "epsilon", "k", "match"),
    [
        ([0, 1], 0.0, 2, "greater than 0"),
        ([0, 1], -1.0, 2, "greater than 0"),
        ([0, 1], float("nan"), 2, "finite"),
        ([0, 1], float("inf"), 2, "finite"),
        ([0, 1], 1e6, 2, "too large"),
        ([0, 2], 1.0, 2, "0..1"),
        ([-1, 0], 1.0, 2, "0..1"),
        ([], 1.0, 2, "empty"),
        ([[0, 1]], 1.0, 2, "1-D"),
        ([0, 0], 1.0, 1, "at least 2"),
        ([0.5, 1.0], 1.0, 2, "whole numbers"),
        ([0, 1], 1.0, 2.5, "whole number"),
    ],
)
def test_bad_input_names_the_problem(labels, epsilon, k, match):
    with pytest.raises(InvalidInputError, match=match):
        vector_randomized_response(np.asarray(labels), epsilon, k, np.random.default_rng(0))


def test_a_plan_that_is_not_binary_coins_is_refused():
    labels = np.array([0, 1, 2])
    with pytest.raises(InvalidInputError, match="binary randomized response coins"):
        vector_randomized_response_by_plan(labels, rr_plan(1.0, 3), 3, np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="binary randomized response coins"):
        vector_randomized_response_by_plan(labels, 0.5, 3, np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="noise"):
        bit_plan(1.0, "quantum")


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_the_variances_are_equal_at_the_crossover_and_vector_rr_wins_above_it(epsilon):
    border = crossover_classes(epsilon)
    half = math.exp(epsilon / 2)
    assert border == pytest.approx(half**3 + half**2 + half + 2, rel=1e-12)
    # RR's variance is affine in K: equal to vector RR's at the border (read as a real K).
    vector, rr_at_2 = estimate_variances(epsilon, 2)
    slope = 1 / math.expm1(epsilon) ** 2
    assert rr_at_2 + (border - 2) * slope == pytest.approx(vector, rel=1e-9)
    below, above = math.floor(border), math.ceil(border) + (border == math.ceil(border))
    if below >= 2:
        assert estimate_variances(epsilon, below)[1] < vector
    assert estimate_variances(epsilon, above)[1] > vector


def test_the_variances_are_the_binomial_ones_of_the_exact_estimators():
    # (b - q)/(p - q) for a bit b ~ Bernoulli(q): variance q(1-q)/(p-q)^2, by its definition.
    epsilon, k = 1.3, 7
    flip = bit_flip_probability(epsilon)
    vector, rr = estimate_variances(epsilon, k)
    assert vector == pytest.approx(flip * (1 - flip) / (1 - 2 * flip) ** 2, rel=1e-12)
    keep = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    other = (1 - keep) / (k - 1)
    assert rr == pytest.approx(other * (1 - other) / (keep - other) ** 2, rel=1e-12)
