"""ALIBI's posterior: exact Bayes on hand-computed cases, normalised, stable, calibrated."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import alibi_posterior, laplace_one_hot

Z = stats.norm.ppf(1 - 1e-3 / 2)


def _bayes(noisy_row, scale, prior):
    """Posterior by brute force: prior times the product of every coordinate's Laplace density."""
    k = len(prior)
    joint = [
        prior[c] * np.prod(stats.laplace.pdf(noisy_row - np.eye(k)[c], scale=scale))
        for c in range(k)
    ]
    return np.array(joint) / sum(joint)


def test_two_classes_by_hand():
    # eps = 2 so b = 1; o = (1, 0) is at distance 0 from e_0 and 2 from e_1.
    posterior = alibi_posterior(np.array([[1.0, 0.0]]), 2.0)
    assert posterior[0, 0] == pytest.approx(1 / (1 + math.exp(-2)), rel=1e-14)
    # A vector equally far from both one-hot vectors leaves the prior unchanged.
    np.testing.assert_allclose(
        alibi_posterior(np.array([[0.5, 0.5]]), 2.0, [0.3, 0.7]), [[0.3, 0.7]]
    )


def test_three_classes_match_brute_force_bayes():
    noisy = np.array([[0.5, 2.0, -1.0], [0.2, 0.1, 0.9], [-3.0, 4.0, 0.4]])
    prior = np.array([0.5, 0.25, 0.25])
    posterior = alibi_posterior(noisy, 1.0, prior)
    for row, expected in zip(noisy, posterior, strict=True):
        np.testing.assert_allclose(expected, _bayes(row, 2.0, prior), rtol=1e-12)


def test_per_row_priors_and_zero_prior_entries():
    noisy = np.array([[0.9, 0.1, 0.0], [0.9, 0.1, 0.0]])
    prior = np.array([[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    posterior = alibi_posterior(noisy, 1.0, prior)
    assert posterior[0, 0] == 0.0
    np.testing.assert_allclose(posterior[1], _bayes(noisy[1], 2.0, prior[1]), rtol=1e-12)


@pytest.mark.parametrize("epsilon", [0.01, 1.0, 100.0])
def test_posteriors_sum_to_one_even_for_extreme_noise(epsilon):
    rng = np.random.default_rng(0)
    noisy = laplace_one_hot(rng.integers(0, 10, 2000), epsilon, 10, rng) * 50
    posterior = alibi_posterior(noisy, epsilon)
    assert np.all(np.isfinite(posterior)) and posterior.min() >= 0
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0, rtol=1e-12)


def test_posterior_averages_back_to_the_prior():
    # Law of total probability: with labels drawn from the prior, E[P(k | o)] = prior_k.
    prior = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(4)
    labels = rng.choice(3, size=50_000, p=prior)
    posterior = alibi_posterior(laplace_one_hot(labels, 1.0, 3, rng), 1.0, prior)
    sigma = posterior.std(axis=0) / math.sqrt(labels.size)
    assert np.all(np.abs(posterior.mean(axis=0) - prior) < Z * sigma)


@pytest.mark.parametrize(
    ("noisy", "prior", "match"),
    [
        (np.zeros(3), None, "shape"),
        (np.full((2, 3), np.nan), None, "finite"),
        (np.zeros((2, 3)), [0.5, 0.5], "prior must have shape"),
        (np.zeros((2, 3)), [0.5, -0.5, 1.0], "non-negative"),
        (np.zeros((2, 3)), [0.0, 0.0, 0.0], "positive mass"),
    ],
)
def test_bad_input_names_the_problem(noisy, prior, match):
    with pytest.raises(InvalidInputError, match=match):
        alibi_posterior(noisy, 1.0, prior)
