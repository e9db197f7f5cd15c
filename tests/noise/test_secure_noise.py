import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.discrete_laplace import discrete_laplace_pmf as pmf_by_epsilon
from labeldp_core.noise.secure_noise import (
    MAX_DENOMINATOR,
    SecureSource,
    SeededSource,
    _bernoulli_ratio,
    _squared_distance_parts,
    argmax_random_ties,
    bernoulli_exp,
    check_noise,
    discrete_gaussian,
    discrete_gaussian_pmf,
    discrete_laplace,
    guaranteed_epsilon,
    rational_scale,
    rational_variance,
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
    pmf = discrete_gaussian_pmf(support, math.sqrt(float(rational_variance(sigma))))
    assert _chi_square_against(draws, pmf, support) > ALPHA


@pytest.mark.parametrize("sigma", [300.3, 1234.567, 15_000.7])
def test_large_sigma_keeps_its_law(sigma):
    # Before sigma^2's denominator adapted, 2 p q t^2 left int64 here and the law drifted
    # (1234.567 gave a standard deviation of 1327). Binned chi-square on 16 bins of sigma/2.
    draws = discrete_gaussian(sigma, 60_000, SeededSource(8))
    exact_sigma = math.sqrt(float(rational_variance(sigma)))
    edges = np.arange(-8, 9) * exact_sigma / 2
    x = np.arange(-int(12 * exact_sigma), int(12 * exact_sigma) + 1)
    pmf = discrete_gaussian_pmf(x, exact_sigma, support=x[-1])
    bins = np.digitize(x, edges)
    expected = np.bincount(bins, weights=pmf, minlength=18) * draws.size
    observed = np.bincount(np.digitize(draws, edges), minlength=18)
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_rational_variance_rounds_up_and_keeps_the_integers_in_int64():
    for sigma in (0.3, 2.5, 299.9, 1234.567, 19_999.9):
        variance = rational_variance(sigma)
        assert variance >= Fraction(sigma) ** 2
        p, q = variance.numerator, variance.denominator
        t = math.isqrt(p // q) + 1
        assert 2 * p * q * t * t <= 2**62
    assert rational_variance(3.0) == 9 and rational_variance(0.5).denominator == 4
    assert rational_variance(1234.567).denominator > 1  # coarser only where it must be


def test_rejection_exponent_is_exact_beyond_the_int64_range():
    # gamma = (|y| q t - p)^2 / (2 p q t^2); far draws take the Python-integer path.
    p, q, t = 1524155678, 1000, 1235
    y = np.array([0, 5, -1234, 40_000, -3_000_000, 2**40], dtype=np.int64)
    whole, part, denominator = _squared_distance_parts(y, p, q, t)
    for value, w, r in zip(y, whole, part, strict=True):
        exact_whole, exact_part = divmod((abs(int(value)) * q * t - p) ** 2, 2 * p * q * t * t)
        assert (int(w), int(r)) == (min(exact_whole, 2**62), exact_part)
    assert int(denominator[0]) == 2 * p * q * t * t


def test_bernoulli_ratio_splits_products_that_leave_int64():
    # n / (d k) = 1/16 with d k = 2^64: sampled as Bernoulli(n/d) and Bernoulli(1/k).
    n = 200_000
    numerator = np.full(n, 2**60, dtype=np.int64)
    denominator = np.full(n, 2**61, dtype=np.int64)
    k = np.full(n, 8, dtype=np.int64)
    hits = int(_bernoulli_ratio(numerator, denominator, k, SeededSource(9)).sum())
    assert stats.binomtest(hits, n, 1 / 16).pvalue > ALPHA


def test_argmax_random_ties_picks_uniformly_among_the_largest():
    rows = np.tile([3, 7, 1, 7, 7], (60_000, 1))
    picks = argmax_random_ties(rows, np.random.default_rng(10))
    counts = np.bincount(picks, minlength=5)
    assert counts[[0, 2]].sum() == 0
    assert stats.chisquare(counts[[1, 3, 4]]).pvalue > ALPHA
    distinct = np.random.default_rng(11).permutation(20).reshape(4, 5)
    assert np.array_equal(
        argmax_random_ties(distinct, np.random.default_rng(0)), distinct.argmax(axis=1)
    )


def test_guaranteed_epsilon_is_exact_and_never_above_the_request():
    for sensitivity in (1, 2, 9):
        for epsilon in (0.01, 0.1, 1 / 3, 0.5, 1.0, 2.0, 5.0, 7.3, 100.0):
            scale = rational_scale(sensitivity, epsilon)
            spent = guaranteed_epsilon(sensitivity, scale)
            assert spent <= epsilon
            # The exact loss rounded up: never below it, and less than one unit in the last
            # place above it.
            exact = Fraction(sensitivity) / scale
            assert Fraction(spent) >= exact > Fraction(math.nextafter(spent, 0.0))
    assert guaranteed_epsilon(2, rational_scale(2, 0.5)) == 0.5  # 4 is exact: nothing lost


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
    with pytest.raises(InvalidInputError, match="floating-point noise mode"):
        rational_scale(2, 1e-12)
    with pytest.raises(InvalidInputError, match="noise must be one of float, secure"):
        check_noise("crypto")
