import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import (
    HISTOGRAM_SENSITIVITY,
    discrete_laplace_noise,
    discrete_laplace_parameter,
    discrete_laplace_pmf,
    discrete_laplace_variance,
    label_counts,
    noisy_label_counts,
    prior_from_counts,
)

ALPHA = 1e-3  # chance that a correct sampler fails a distribution test for an arbitrary seed


def test_pmf_sums_to_one_and_variance_matches_the_closed_form():
    support = np.arange(-2000, 2001)
    for epsilon, sensitivity in ((0.1, 2), (1.0, 1), (3.0, 2)):
        pmf = discrete_laplace_pmf(support, epsilon, sensitivity)
        assert pmf.sum() == pytest.approx(1.0, rel=1e-9)
        variance = float(np.sum(pmf * support**2))
        assert variance == pytest.approx(discrete_laplace_variance(epsilon, sensitivity), rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 5.0])
def test_neighbouring_counts_are_exactly_epsilon_apart(epsilon):
    # A count moved by the sensitivity changes every output's probability by at most e^eps.
    support = np.arange(-50, 51)
    shifted = support - HISTOGRAM_SENSITIVITY
    ratio = discrete_laplace_pmf(support, epsilon, 2) / discrete_laplace_pmf(shifted, epsilon, 2)
    assert ratio.max() == pytest.approx(math.exp(epsilon), rel=1e-12)
    assert ratio.min() == pytest.approx(math.exp(-epsilon), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_samples_follow_the_pmf(epsilon):
    noise = discrete_laplace_noise(200_000, epsilon, 2, np.random.default_rng(11))
    assert noise.dtype == np.int64
    alpha = discrete_laplace_parameter(epsilon, 2)
    # Bins: the values out to where alpha^|x| falls below 5 / n, plus both tails lumped together.
    cutoff = math.floor(math.log(5 / 200_000) / math.log(alpha))
    values = np.arange(-cutoff, cutoff + 1)
    expected = 200_000 * discrete_laplace_pmf(values, epsilon, 2)
    observed = np.array([np.sum(noise == v) for v in values])
    tail_expected = 200_000 - expected.sum()
    tail_observed = np.sum(np.abs(noise) > cutoff)
    _, p_value = stats.chisquare(
        np.append(observed, tail_observed), np.append(expected, tail_expected)
    )
    assert p_value > ALPHA


def test_a_sampler_at_the_wrong_scale_is_caught():
    noise = discrete_laplace_noise(200_000, 1.0, 1, np.random.default_rng(11))  # sensitivity 1
    values = np.arange(-6, 7)
    expected = 200_000 * discrete_laplace_pmf(values, 1.0, 2)
    observed = np.array([np.sum(noise == v) for v in values])
    _, p_value = stats.chisquare(
        np.append(observed, 200_000 - observed.sum()), np.append(expected, 200_000 - expected.sum())
    )
    assert p_value < ALPHA


def test_tiny_epsilon_gives_large_noise_without_overflow():
    noise = discrete_laplace_noise(10_000, 0.001, 2, np.random.default_rng(0))
    sigma = math.sqrt(discrete_laplace_variance(0.001, 2))
    assert abs(noise.std() / sigma - 1) < 0.05


@pytest.mark.parametrize(
    ("epsilon", "sensitivity", "match"),
    [(0.0, 2, "greater than 0"), (float("nan"), 2, "finite"), (1.0, 0, "greater than 0")],
)
def test_bad_noise_parameters_are_refused(epsilon, sensitivity, match):
    with pytest.raises(InvalidInputError, match=match):
        discrete_laplace_noise(3, epsilon, sensitivity, np.random.default_rng(0))


def test_label_counts_and_their_sensitivity():
    groups = np.array([0, 0, 1, 2, 2, 2])
    labels = np.array([1, 1, 0, 2, 1, 2])
    counts = label_counts(groups, labels, 3, 3)
    np.testing.assert_array_equal(counts, [[0, 2, 0], [1, 0, 0], [0, 1, 2]])
    # Replacing any one label moves the table by exactly 2 in L1 (or 0 if unchanged).
    for i in range(labels.size):
        for new in range(3):
            changed = labels.copy()
            changed[i] = new
            moved = np.abs(label_counts(groups, changed, 3, 3) - counts).sum()
            assert moved == (0 if new == labels[i] else HISTOGRAM_SENSITIVITY)


def test_noisy_counts_add_discrete_laplace_noise_at_sensitivity_2():
    rng = np.random.default_rng(5)
    groups = np.zeros(1000, dtype=int)
    labels = np.arange(1000) % 4
    draws = np.concatenate(
        [(noisy_label_counts(groups, labels, 1, 4, 1.0, rng) - 250).ravel() for _ in range(5000)]
    )
    values = np.arange(-8, 9)
    expected = draws.size * discrete_laplace_pmf(values, 1.0, 2)
    observed = np.array([np.sum(draws == v) for v in values])
    _, p_value = stats.chisquare(
        np.append(observed, draws.size - observed.sum()),
        np.append(expected, draws.size - expected.sum()),
    )
    assert p_value > ALPHA


def test_prior_from_counts_clips_normalises_and_falls_back_to_uniform():
    prior = prior_from_counts(np.array([[3, -2, 1], [-1, -4, 0], [0, 5, 0], [0.5, -1, 0]]))
    expected = [[0.75, 0, 0.25], [1 / 3, 1 / 3, 1 / 3], [0, 1, 0], [1, 0, 0]]  # a total < 1 too
    np.testing.assert_allclose(prior, expected)


@pytest.mark.parametrize(
    ("groups", "labels", "match"),
    [
        ([0, 3], [0, 1], "group ids in 0..2"),
        ([0, 1, 1], [0, 1], "same length"),
        ([0.5, 1], [0, 1], "group ids"),
        ([0, 1], [0, 5], "0..2"),
    ],
)
def test_bad_groups_or_labels_are_refused(groups, labels, match):
    with pytest.raises(InvalidInputError, match=match):
        label_counts(np.asarray(groups), np.asarray(labels), 3, 3)


def test_a_histogram_with_nothing_left_after_clipping_gives_a_uniform_prior():
    # Written for surviving mutants of the fallback row (a total of exactly one is not empty).
    prior = prior_from_counts(np.array([[-3.0, 0.0, -1.0], [0.0, 1.0, 0.0], [2.0, 2.0, 0.0]]))
    np.testing.assert_allclose(prior, [[1 / 3] * 3, [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    with pytest.raises(InvalidInputError, match="K >= 2"):
        prior_from_counts(np.array([[1.0], [2.0]]))
    np.testing.assert_allclose(prior_from_counts(np.array([[1.0, 3.0]])), [[0.25, 0.75]])
