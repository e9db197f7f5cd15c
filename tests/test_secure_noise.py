import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms.discrete_laplace import discrete_laplace_pmf as pmf_by_epsilon
from labeldp_core.mechanisms.secure_noise import (
    MAX_DENOMINATOR,
    SecureSource,
    SeededSource,
    bernoulli_exp,
    discrete_gaussian,
    discrete_gaussian_pmf,
    discrete_laplace,
    rational_scale,
    uniform_below,
)

ALPHA = 1e-3  # with a fixed seed the tests are deterministic; alpha bounds it for any seed


def discrete_laplace_pmf(values: np.ndarray, scale: float) -> np.ndarray:
    """P(y) proportional to exp(-|y| / scale): the shared pmf at epsilon/sensitivity = 1/scale."""
    return pmf_by_epsilon(values, 1.0 / scale)


def _chi_square_against(draws: np.ndarray, pmf: np.ndarray, support: np.ndarray) -> float:
    """p-value of draws against a pmf on ``support``, tails pooled into one bin each side."""
    inside = np.array([np.sum(draws == v) for v in support])
    low, high = np.sum(draws < support[0]), np.sum(draws > support[-1])
    observed = np.concatenate([[low], inside, [high]])
    tail_mass = 1.0 - pmf.sum()  # both laws are symmetric: half the tail on each side
    expected = np.concatenate([[tail_mass / 2], pmf, [tail_mass / 2]]) * draws.size
    return stats.chisquare(observed, expected).pvalue


def test_uniform_below_is_unbiased_for_a_bound_that_does_not_divide_2_to_64():
    draws = uniform_below(np.full(300_000, 7), SeededSource(1))
    assert draws.min() == 0 and draws.max() == 6
    assert stats.chisquare(np.bincount(draws, minlength=7)).pvalue > ALPHA


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma):
    n = 200_000
    numerator = np.full(n, gamma.numerator)
    hits = int(bernoulli_exp(numerator, np.int64(gamma.denominator), SeededSource(2)).sum())
    expected = math.exp(-float(gamma))
    assert stats.binomtest(hits, n, expected).pvalue > ALPHA


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(2, 1.0), (2, 0.3), (9, 2.0)])
def test_discrete_laplace_matches_its_pmf(sensitivity, epsilon):
    scale = rational_scale(sensitivity, epsilon)
    draws = discrete_laplace(scale, 200_000, SeededSource(3))
    support = np.arange(-int(6 * scale), int(6 * scale) + 1)
    pmf = discrete_laplace_pmf(support, float(scale))
    assert _chi_square_against(draws, pmf, support) > ALPHA


def test_discrete_laplace_is_exactly_epsilon_dp_for_its_sensitivity():
    # Shifting the input by the sensitivity changes the probability of any output by e^epsilon at
    # most, with equality in the tails: the ratio of the pmf at y and y + sensitivity.
    sensitivity, epsilon = 2, 0.8
    scale = rational_scale(sensitivity, epsilon)
    y = np.arange(-50, 51)
    ratios = discrete_laplace_pmf(y, float(scale)) / discrete_laplace_pmf(
        y + sensitivity, float(scale)
    )
    guaranteed = sensitivity / float(scale)
    assert guaranteed <= epsilon
    assert guaranteed > epsilon * (1 - 1e-5)
    assert ratios.max() == pytest.approx(math.exp(guaranteed), rel=1e-9)


def test_rational_scale_rounds_up_so_noise_is_never_smaller():
    for epsilon in (0.1, 0.3, 1 / 3, 0.7, 2.0, 7.0):
        scale = rational_scale(2, epsilon)
        assert scale >= Fraction(2) / Fraction(epsilon)
        assert scale.denominator <= MAX_DENOMINATOR
        assert float(scale) - 2 / epsilon <= 1 / MAX_DENOMINATOR + 1e-12


@pytest.mark.parametrize("sigma", [0.7, 3.0, 25.0])
def test_discrete_gaussian_matches_its_pmf(sigma):
    draws = discrete_gaussian(sigma, 150_000, SeededSource(4))
    support = np.arange(-int(4 * sigma) - 1, int(4 * sigma) + 2)
    pmf = discrete_gaussian_pmf(
        support, math.sqrt(math.ceil(sigma**2 * MAX_DENOMINATOR) / MAX_DENOMINATOR)
    )
    assert _chi_square_against(draws, pmf, support) > ALPHA


def test_a_wrong_scale_is_caught_by_the_same_test():
    draws = discrete_laplace(rational_scale(2, 1.0), 200_000, SeededSource(5))
    support = np.arange(-12, 13)
    assert _chi_square_against(draws, discrete_laplace_pmf(support, 1.8), support) < ALPHA


def test_secure_source_gives_integers_of_the_right_law_shape():
    draws = discrete_laplace(Fraction(3), 2000, SecureSource())
    assert draws.dtype == np.int64 and draws.shape == (2000,)
    # Mean 0 with standard deviation sqrt(var / n); 6 sigma is far beyond any plausible draw.
    variance = 2 * math.exp(-1 / 3) / (1 - math.exp(-1 / 3)) ** 2
    assert abs(draws.mean()) < 6 * math.sqrt(variance / draws.size)


def test_bad_parameters_are_refused():
    with pytest.raises(InvalidInputError, match="greater than 0"):
        rational_scale(2, 0.0)
    with pytest.raises(InvalidInputError, match="sigma"):
        discrete_gaussian(1e5, 10)
    with pytest.raises(InvalidInputError, match="scale must be > 0"):
        discrete_laplace(Fraction(0), 10)
