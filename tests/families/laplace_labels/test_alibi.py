"""ALIBI's posterior: exact Bayes on hand-computed cases, normalised, stable, calibrated."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.laplace_labels.label_prior import PRIOR_SETTINGS, estimate_prior
from labeldp_core.mechanisms import alibi_posterior, laplace_one_hot, prior_from_counts
from tests.contract.bad_values import NOISY, PRIOR3

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


def test_alibi_prior_scale_does_not_change_the_posterior():
    # Accepted on purpose (its bad-input row, bad_inputs.py, lets it pass): ALIBI's posterior is
    # invariant to the prior's scale.
    normalised = alibi_posterior(NOISY, 1.0, PRIOR3)
    np.testing.assert_allclose(alibi_posterior(NOISY, 1.0, PRIOR3 * 7), normalised)


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


def test_pseudo_count_is_added_to_the_clipped_counts():
    prior = prior_from_counts(np.array([[3, -2, 1], [-1, -4, 0]]), pseudo_count=1.0)
    np.testing.assert_allclose(prior, [[4 / 7, 1 / 7, 2 / 7], [1 / 3, 1 / 3, 1 / 3]])
    with pytest.raises(InvalidInputError, match="pseudo_count"):
        prior_from_counts(np.array([[3, 1]]), pseudo_count=-1.0)


# Digits at epsilon 0.1 with the default share: the histogram gets epsilon 0.01, noise of scale
# 200 per count against about 144 labels per class, so clipping alone zeroes classes often.
EPSILON, SHARE = 0.1, PRIOR_SETTINGS["prior_share"].default
SEEDS = range(20)


def _histogram_prior(seed: int):
    labels = load_dataset("digits").y_train
    rng = np.random.default_rng(seed)
    return estimate_prior(labels, 10, EPSILON, "histogram", SHARE, rng), labels, rng


def test_a_noisy_histogram_prior_gives_every_class_some_probability():
    clipped_zeros = 0
    for seed in SEEDS:
        estimate, _, _ = _histogram_prior(seed)
        assert estimate.pseudo_count == pytest.approx(2 / (EPSILON * SHARE))  # the noise scale
        assert estimate.prior.min() > 0, (seed, estimate.noisy_counts)
        assert estimate.prior.sum() == pytest.approx(1.0, rel=1e-12)
        clipped_zeros += np.sum(prior_from_counts(np.array([estimate.noisy_counts]))[0] == 0)
    # Without the pseudo-count the same counts would rule classes out (about 2.5 per draw).
    assert clipped_zeros > len(SEEDS)


def test_alibi_soft_labels_put_mass_on_every_class_under_a_histogram_prior():
    for seed in SEEDS[:5]:
        estimate, labels, rng = _histogram_prior(seed)
        release = estimate.split.release_epsilon
        noisy = laplace_one_hot(labels, release, 10, rng)
        posterior = alibi_posterior(noisy, release, estimate.prior)
        assert posterior.min() > 0, seed  # every example, every class
        # What clipping alone would have done to the same vectors: classes never labelled.
        clipped = prior_from_counts(np.array([estimate.noisy_counts]))[0]
        never = alibi_posterior(noisy, release, clipped).max(axis=0) == 0
        np.testing.assert_array_equal(never, clipped == 0)


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
