"""The noisy label histogram: discrete Laplace noise, its privacy, and the prior it gives."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.accounting import sequential_composition, split_budget
from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import discrete_laplace, histogram_prior, noisy_histogram

ALPHA = 1e-3


@pytest.mark.parametrize("scale", [0.5, 2.0, 20.0])
def test_discrete_laplace_matches_its_pmf(scale):
    rng = np.random.default_rng(13)
    draws = discrete_laplace(scale, 100_000, rng)
    a = math.exp(-1 / scale)
    support = np.arange(-int(8 * scale) - 3, int(8 * scale) + 4)
    pmf = (1 - a) / (1 + a) * a ** np.abs(support)
    observed = np.array([np.sum(draws == z) for z in support])
    # Pool both tails beyond the support into one cell so the expected counts sum up.
    observed = np.append(observed, draws.size - observed.sum())
    expected = np.append(pmf, 1 - pmf.sum()) * draws.size
    keep = expected > 5
    tail = np.sum(observed[~keep]), np.sum(expected[~keep])
    observed, expected = np.append(observed[keep], tail[0]), np.append(expected[keep], tail[1])
    _, p_value = stats.chisquare(observed, expected)
    assert p_value > ALPHA


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_noisy_histogram_is_exactly_epsilon_dp(epsilon):
    # Neighbouring label sets: one label changed from class 0 to class 2. Every released
    # count vector o has log P(o | c) = -||o - c||_1 / s + const with s = 2/eps.
    scale = 2.0 / epsilon
    counts = np.array([5, 3, 7])
    neighbour = counts + np.array([-1, 0, 1])
    grid = np.stack(np.meshgrid(*(np.arange(-5, 15),) * 3), axis=-1).reshape(-1, 3)
    ratio = (np.abs(grid - neighbour).sum(1) - np.abs(grid - counts).sum(1)) / scale
    assert np.abs(ratio).max() == pytest.approx(epsilon, rel=1e-12)


def test_noisy_histogram_counts_plus_integer_noise():
    labels = np.repeat(np.arange(4), [100, 50, 25, 0])
    rng = np.random.default_rng(0)
    noisy = noisy_histogram(labels, 4, 100.0, rng)
    assert noisy.dtype.kind == "i"
    np.testing.assert_array_equal(noisy, [100, 50, 25, 0])  # scale 0.02: noise is 0 w.p. ~1


def test_histogram_prior_clamps_and_falls_back_to_uniform():
    np.testing.assert_allclose(histogram_prior([3, -2, 1]), [0.75, 0.0, 0.25])
    np.testing.assert_allclose(histogram_prior([-3, -2, 0]), [1 / 3] * 3)
    with pytest.raises(InvalidInputError):
        histogram_prior([1.0])


def test_budget_split_adds_up():
    split = split_budget(1.0, 0.1)
    assert split.prior == pytest.approx(0.1) and split.release == pytest.approx(0.9)
    assert split.total == pytest.approx(1.0)
    assert split_budget(2.0, 0.0).release == 2.0
    assert sequential_composition(0.25, 0.5, 0.25) == 1.0
    for bad in (1.0, -0.1, float("nan")):
        with pytest.raises(InvalidInputError, match="prior_share"):
            split_budget(1.0, bad)
