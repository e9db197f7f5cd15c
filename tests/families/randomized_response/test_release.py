import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import expected_flip_rate, keep_probability, transition_matrix
from labeldp_core.noise.randomized_response import randomized_response

# With a fixed seed the tests are deterministic; the threshold bounds how often they would fail
# for an arbitrary seed if the mechanism were right (family-wise, Bonferroni over the rows).
ALPHA = 1e-3


def test_keep_probability_matches_closed_form_exactly():
    # Binary RR at epsilon = ln 9 keeps with probability 9/10.
    assert keep_probability(math.log(9), 2) == pytest.approx(0.9, abs=1e-15)
    for epsilon in (0.01, 0.5, 1.0, 3.0):
        for k in (2, 3, 10, 100):
            expected = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
            assert keep_probability(epsilon, k) == pytest.approx(expected, rel=1e-12)
            assert expected_flip_rate(epsilon, k) == pytest.approx(1 - expected, rel=1e-12)


def test_large_epsilon_does_not_overflow():
    assert keep_probability(100.0, 10) == pytest.approx(1.0)


@pytest.mark.parametrize("epsilon", [0.25, 1.0, 4.0])
def test_transition_matrix_is_stochastic_and_exactly_epsilon_dp(epsilon):
    k = 10
    matrix = transition_matrix(epsilon, k)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-12)
    # Largest ratio P(o | a) / P(o | b) over all outputs o and pairs (a, b): exactly e^epsilon.
    ratios = matrix[:, None, :] / matrix[None, :, :]
    assert ratios.max() == pytest.approx(math.exp(epsilon), rel=1e-12)
    # ... and so the mechanism is not epsilon' DP for any smaller epsilon'.
    assert ratios.max() > math.exp(epsilon * 0.999)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 3.0])
def test_output_distribution_matches_transition_matrix(epsilon):
    k, per_label = 10, 20_000
    rng = np.random.default_rng(12345)
    labels = np.repeat(np.arange(k), per_label)
    released = randomized_response(labels, epsilon, k, rng)
    matrix = transition_matrix(epsilon, k)
    for true_label in range(k):
        observed = np.bincount(released[labels == true_label], minlength=k)
        _, p_value = stats.chisquare(observed, per_label * matrix[true_label])
        assert p_value > ALPHA / k, (true_label, observed)


def test_rr_with_a_wrong_keep_rate_is_caught_by_the_same_test():
    # The chi-square check above has power: RR run at twice the budget fails it.
    k, per_label = 10, 20_000
    rng = np.random.default_rng(12345)
    labels = np.repeat(np.arange(k), per_label)
    released = randomized_response(labels, 2.0, k, rng)
    observed = np.bincount(released[labels == 0], minlength=k)
    _, p_value = stats.chisquare(observed, per_label * transition_matrix(1.0, k)[0])
    assert p_value < ALPHA


def test_flipped_labels_are_never_the_true_label_and_output_in_range():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, size=10_000)
    released = randomized_response(labels, 0.1, 5, rng)
    assert released.dtype == np.int64
    assert released.min() >= 0 and released.max() <= 4
    flip_rate = np.mean(released != labels)
    expected = expected_flip_rate(0.1, 5)
    sigma = math.sqrt(expected * (1 - expected) / labels.size)
    assert abs(flip_rate - expected) < 5 * sigma


def test_same_seed_same_output():
    labels = np.arange(10).repeat(10)
    first = randomized_response(labels, 1.0, 10, np.random.default_rng(7))
    second = randomized_response(labels, 1.0, 10, np.random.default_rng(7))
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
    ],
)
def test_bad_input_names_the_problem(labels, epsilon, k, match):
    with pytest.raises(InvalidInputError, match=match):
        randomized_response(np.asarray(labels), epsilon, k, np.random.default_rng(0))


def test_secure_mode_needs_no_generator_and_float_mode_refuses_a_seed():
    # Written for a surviving mutant that checked the generator in the wrong mode.
    labels = np.arange(10) % 3
    released = randomized_response(labels, 1.0, 3, None, noise="secure")
    assert released.shape == labels.shape and set(released.tolist()) <= {0, 1, 2}
    with pytest.raises(InvalidInputError, match=r"rng must be a numpy\.random\.Generator"):
        randomized_response(labels, 1.0, 3, 0)
