"""Laplace noise facts, Laplace on one-hot labels and on regression values."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import (
    argmax_accuracy,
    clamp_normalise,
    clamp_round,
    epsilon_for_noise,
    expected_regression_mse,
    laplace_cdf,
    laplace_density,
    laplace_epsilon,
    laplace_one_hot,
    laplace_regression,
    laplace_scale,
    laplace_variance,
    one_hot_log_density,
    post_process,
    regression_log_likelihood,
    tail_probability,
)

# Fixed seeds make every test deterministic; ALPHA bounds how often a statistical check would
# fail for an arbitrary seed if the mechanism were right; Z is the two-sided normal quantile.
ALPHA = 1e-3
Z = stats.norm.ppf(1 - ALPHA / 2)


def _variance_within_tolerance(noise: np.ndarray, scale: float) -> bool:
    """Sample variance vs 2b^2: for Laplace noise Var(X^2) = E X^4 - (E X^2)^2 = 24b^4 - 4b^4."""
    sigma = math.sqrt(20.0 / noise.size) * scale**2
    return abs(np.mean(noise**2) - 2 * scale**2) < Z * sigma


def _follows_laplace(noise: np.ndarray, scale: float) -> bool:
    """Kolmogorov-Smirnov: ``noise`` is Lap(0, scale), rejected at level ALPHA."""
    return stats.kstest(noise, "laplace", args=(0.0, scale)).pvalue > ALPHA


def _privacy_loss_within(noise: np.ndarray, sensitivity: float, epsilon: float) -> bool:
    """The loss Δ/b̂ of the fitted scale b̂ is at most ε, up to sampling error.

    b̂ = mean |noise| is the maximum-likelihood scale of Lap(0, b); |noise| ~ Exp(b), so b̂ has
    relative standard deviation 1/sqrt(n) and Δ/b̂ exceeds Δ/b by more than Z/sqrt(n) of it with
    probability below ALPHA (delta method). The density ratio of neighbouring outputs at scale b̂
    reaches exactly e^(Δ/b̂) (see the exact-ratio tests below).
    """
    fitted = float(np.mean(np.abs(noise)))
    return sensitivity / fitted <= epsilon * (1.0 + Z / math.sqrt(noise.size))


def _one_hot_noise(release, labels: np.ndarray, epsilon: float, k: int, seed: int) -> np.ndarray:
    """The noise ``release`` (laplace_one_hot or a stand-in) adds to the one-hot ``labels``."""
    noisy = release(labels, epsilon, k, np.random.default_rng(seed))
    return (noisy - np.eye(k)[labels]).ravel()


def _sensitivity_one_one_hot(labels, epsilon, k, rng):
    """A mis-scaled release: noise calibrated for L1 sensitivity 1, scale 1/ε instead of 2/ε."""
    return laplace_one_hot(labels, 2.0 * epsilon, k, rng)


def _rounded_noise_one_hot(labels, epsilon, k, rng):
    """A broken release: the right scale, but the noise cast to int before it is added."""
    noise = np.trunc(rng.laplace(0.0, 2.0 / epsilon, size=(labels.shape[0], k)))
    return np.eye(k)[labels] + noise


# --- closed forms -----------------------------------------------------------------------------


def test_scale_variance_and_epsilon_are_exact():
    assert laplace_scale(2.0, 0.5) == 4.0
    assert laplace_variance(4.0) == 32.0
    assert laplace_epsilon(2.0, 4.0) == 0.5
    for epsilon in (0.1, 1.0, 7.0):
        assert laplace_epsilon(9.0, laplace_scale(9.0, epsilon)) == pytest.approx(epsilon)


def test_density_cdf_and_tail_agree_with_scipy():
    x = np.linspace(-10, 10, 101)
    np.testing.assert_allclose(laplace_density(x, 1.7), stats.laplace.pdf(x, scale=1.7))
    np.testing.assert_allclose(laplace_cdf(x, 1.7), stats.laplace.cdf(x, scale=1.7))
    t = np.abs(x)
    np.testing.assert_allclose(tail_probability(t, 1.7), 2 * stats.laplace.sf(t, scale=1.7))


@pytest.mark.parametrize("sensitivity", [1.0, 2.0, 9.0])
@pytest.mark.parametrize("magnitude", [0.05, 1.0, 30.0])
@pytest.mark.parametrize("probability", [0.01, 0.5, 0.9, 0.999])
def test_calculator_round_trips_with_the_laplace_cdf(sensitivity, magnitude, probability):
    epsilon = epsilon_for_noise(magnitude, probability, sensitivity)
    scale = sensitivity / epsilon
    within = laplace_cdf(magnitude, scale) - laplace_cdf(-magnitude, scale)
    assert within == pytest.approx(probability, rel=1e-12)
    assert stats.laplace.cdf(magnitude, scale=scale) - stats.laplace.cdf(
        -magnitude, scale=scale
    ) == pytest.approx(probability, rel=1e-9)


def test_calculator_worked_example():
    # Δ = 2, noise within ±1 half of the time: ε = 2 ln 2.
    assert epsilon_for_noise(1.0, 0.5, 2.0) == pytest.approx(2 * math.log(2), rel=1e-15)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_argmax_accuracy_matches_simulation(epsilon):
    k, n = 10, 100_000
    rng = np.random.default_rng(3)
    noisy = laplace_one_hot(np.zeros(n, dtype=int), epsilon, k, rng)
    hits = int(np.sum(noisy.argmax(axis=1) == 0))
    expected = argmax_accuracy(epsilon, k)
    assert stats.binomtest(hits, n, expected).pvalue > ALPHA


def test_argmax_accuracy_limits():
    assert argmax_accuracy(100.0, 10) == pytest.approx(1.0)
    assert argmax_accuracy(1e-4, 10) == pytest.approx(0.1, abs=1e-4)
    # Two classes, closed form by hand: P(1 + N0 > N1) with N0 - N1 ~ difference of Laplaces.
    b = 2.0
    exact = 1 - 0.5 * math.exp(-1 / b) * (1 + 1 / (2 * b))
    assert argmax_accuracy(1.0, 2) == pytest.approx(exact, rel=1e-9)


# --- one-hot release --------------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_one_hot_noise_variance_is_two_b_squared(epsilon):
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 10, size=20_000)
    noisy = laplace_one_hot(labels, epsilon, 10, rng)
    noise = noisy - np.eye(10)[labels]
    assert _variance_within_tolerance(noise.ravel(), 2.0 / epsilon)
    # Noise is continuous and added as floats: no coordinate of the release is a whole number.
    assert noisy.dtype == np.float64
    assert not np.any(noisy == np.round(noisy))


def test_variance_check_catches_a_mis_scaled_release():
    noise = _one_hot_noise(_sensitivity_one_one_hot, np.zeros(20_000, dtype=int), 1.0, 10, 11)
    assert not _variance_within_tolerance(noise, 2.0)


# The privacy checks are tied to laplace_one_hot itself: its noise, drawn with a fixed seed, must
# be Lap(0, 2/ε) for either of two neighbouring labels (KS test), and the scale fitted to it must
# give a privacy loss within ε. one_hot_log_density is the product of those marginals (checked
# against scipy), and its exact ratio for neighbouring labels stays within e^ε. Stand-ins that
# are mis-scaled or round the noise must fail the same checks.


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 5.0])
@pytest.mark.parametrize("label", [0, 3])
def test_one_hot_noise_is_laplace_with_scale_two_over_epsilon(epsilon, label):
    noise = _one_hot_noise(laplace_one_hot, np.full(20_000, label), epsilon, 5, seed=5 + label)
    assert _follows_laplace(noise, 2.0 / epsilon)
    assert _privacy_loss_within(noise, 2.0, epsilon)


@pytest.mark.parametrize("release", [_sensitivity_one_one_hot, _rounded_noise_one_hot])
def test_laplace_checks_catch_a_broken_one_hot_release(release):
    noise = _one_hot_noise(release, np.full(20_000, 3), 1.0, 5, seed=5)
    assert not _follows_laplace(noise, 2.0)


def test_privacy_loss_check_catches_noise_for_sensitivity_one():
    noise = _one_hot_noise(_sensitivity_one_one_hot, np.full(20_000, 3), 1.0, 5, seed=5)
    assert not _privacy_loss_within(noise, 2.0, 1.0)  # the fitted loss is about 2ε


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 5.0])
def test_one_hot_density_is_the_product_of_laplace_marginals(epsilon):
    outputs = np.random.default_rng(0).normal(0.5, 3.0, size=(200, 4))
    for label in range(4):
        marginals = stats.laplace.logpdf(outputs - np.eye(4)[label], scale=2.0 / epsilon)
        np.testing.assert_allclose(
            one_hot_log_density(outputs, label, epsilon), marginals.sum(axis=1), rtol=1e-12
        )


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 5.0])
def test_one_hot_density_ratio_never_exceeds_e_epsilon(epsilon):
    k = 4
    rng = np.random.default_rng(0)
    scale = 2.0 / epsilon
    outputs = np.concatenate(
        [
            rng.laplace(0.5, 3 * scale, size=(5000, k)),  # anywhere
            np.eye(k),
            -np.eye(k),
            np.eye(k) * 5,  # corners and beyond
        ]
    )
    worst = 0.0
    for a in range(k):
        for b in range(k):
            ratio = one_hot_log_density(outputs, a, epsilon) - one_hot_log_density(
                outputs, b, epsilon
            )
            worst = max(worst, ratio.max())
    assert worst <= epsilon + 1e-12
    # ... and the bound is attained: o = e_a is e^eps times likelier under a than under b.
    assert worst == pytest.approx(epsilon, rel=1e-12)


def test_post_processing_outputs_stay_in_range():
    rng = np.random.default_rng(1)
    noisy = laplace_one_hot(rng.integers(0, 6, 5000), 0.2, 6, rng)
    soft = clamp_normalise(noisy)
    assert soft.min() >= 0 and soft.max() <= 1
    np.testing.assert_allclose(soft.sum(axis=1), 1.0)
    rounded = clamp_round(noisy)
    assert set(np.unique(rounded)) <= {0.0, 1.0}
    hard = post_process(noisy, "argmax")
    assert hard.dtype.kind == "i" and hard.min() >= 0 and hard.max() <= 5
    targets = post_process(noisy, "round")
    np.testing.assert_allclose(targets.sum(axis=1), 1.0)


def test_all_zero_rows_become_uniform_and_ones_share_the_mass():
    noisy = np.array([[-0.3, -2.0, -0.1], [0.8, 0.7, -1.0], [1.6, 0.2, 0.1]])
    np.testing.assert_allclose(clamp_normalise(noisy)[0], [1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(clamp_normalise(noisy)[1], [0.8 / 1.5, 0.7 / 1.5, 0.0])
    np.testing.assert_allclose(
        post_process(noisy, "round"), [[1 / 3] * 3, [0.5, 0.5, 0], [1, 0, 0]]
    )


# --- regression release -----------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 8.0])
def test_regression_outputs_are_clamped_and_float(epsilon):
    rng = np.random.default_rng(2)
    values = rng.integers(0, 10, size=10_000)
    released = laplace_regression(values, epsilon, 0, 9, rng)
    assert released.dtype == np.float64
    assert released.min() >= 0 and released.max() <= 9
    inside = released[(released > 0) & (released < 9)]
    assert not np.any(inside == np.round(inside))


def _sensitivity_one_regression(values, epsilon, low, high, rng):
    """A mis-scaled release: noise for sensitivity 1, scale 1/ε instead of (high-low)/ε."""
    return np.clip(values + rng.laplace(0.0, 1.0 / epsilon, size=values.shape), low, high)


def _unclamped_regression_noise(release, epsilon: float, seed: int) -> np.ndarray:
    """The noise ``release`` adds to 500 in [0, 1000]: the clamp is 25 scales away at ε = 50."""
    values = np.full(50_000, 500.0)
    return release(values, epsilon, 0.0, 1000.0, np.random.default_rng(seed)) - values


def test_regression_noise_variance_before_the_clamp():
    # A wide range so the clamp is never reached: the noise itself has variance 2b^2.
    noise = _unclamped_regression_noise(laplace_regression, 50.0, seed=4)
    assert _variance_within_tolerance(noise, 1000.0 / 50.0)


@pytest.mark.parametrize("seed", [4, 9])
def test_regression_noise_before_the_clamp_is_laplace_with_scale_range_over_epsilon(seed):
    noise = _unclamped_regression_noise(laplace_regression, 50.0, seed)
    assert _follows_laplace(noise, 1000.0 / 50.0)
    assert _privacy_loss_within(noise, 1000.0, 50.0)


def test_regression_checks_catch_noise_for_sensitivity_one():
    noise = _unclamped_regression_noise(_sensitivity_one_regression, 50.0, seed=4)
    assert not _follows_laplace(noise, 1000.0 / 50.0)
    assert not _privacy_loss_within(noise, 1000.0, 50.0)


def _inside_follows_truncated_laplace(released: np.ndarray, value: float, scale: float) -> bool:
    """KS on the releases strictly inside (0, 9): Lap(value, scale) truncated to that interval."""
    inside = released[(released > 0.0) & (released < 9.0)]
    low, high = stats.laplace.cdf([0.0, 9.0], loc=value, scale=scale)

    def truncated_cdf(x: np.ndarray) -> np.ndarray:
        return (stats.laplace.cdf(x, loc=value, scale=scale) - low) / (high - low)

    return stats.kstest(inside, truncated_cdf).pvalue > ALPHA


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("value", [0.0, 4.0])
def test_regression_releases_inside_the_range_follow_the_laplace_density(epsilon, value):
    # The part the clamp leaves alone is the density regression_log_likelihood uses inside.
    released = laplace_regression(np.full(40_000, value), epsilon, 0, 9, np.random.default_rng(12))
    assert _inside_follows_truncated_laplace(released, value, 9.0 / epsilon)
    inside = np.array([0.5, 3.0, 8.5])
    np.testing.assert_allclose(
        regression_log_likelihood(inside, value, epsilon, 0, 9),
        stats.laplace.logpdf(inside, loc=value, scale=9.0 / epsilon),
        rtol=1e-12,
    )


def test_truncated_laplace_check_catches_noise_for_sensitivity_one():
    rng = np.random.default_rng(12)
    released = _sensitivity_one_regression(np.full(40_000, 4.0), 2.0, 0, 9, rng)
    assert not _inside_follows_truncated_laplace(released, 4.0, 9.0 / 2.0)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("value", [0.0, 2.0, 4.5, 9.0])
def test_expected_regression_mse_matches_simulation(epsilon, value):
    rng = np.random.default_rng(6)
    values = np.full(40_000, value)
    squared = (laplace_regression(values, epsilon, 0, 9, rng) - value) ** 2
    expected = float(expected_regression_mse(value, epsilon, 0, 9))
    assert abs(squared.mean() - expected) < Z * squared.std() / math.sqrt(squared.size)


def test_expected_regression_mse_limits():
    # No clamp in reach: 2b^2. Huge noise: the two ends half the time each.
    assert expected_regression_mse(500.0, 100.0, 0.0, 1000.0) == pytest.approx(2 * 10.0**2)
    assert expected_regression_mse(2.0, 1e-6, 0.0, 9.0) == pytest.approx((4 + 49) / 2, rel=1e-5)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_regression_likelihood_ratio_never_exceeds_e_epsilon(epsilon):
    outputs = np.concatenate([[0.0, 9.0], np.linspace(0, 9, 901)[1:-1]])
    worst = 0.0
    for a in range(10):
        for b in range(10):
            ratio = regression_log_likelihood(
                outputs, a, epsilon, 0, 9
            ) - regression_log_likelihood(outputs, b, epsilon, 0, 9)
            worst = max(worst, ratio.max())
    assert worst <= epsilon + 1e-12
    assert worst == pytest.approx(epsilon, rel=1e-12)  # reached at the clamped ends for 0 vs 9


def test_regression_end_masses_match_the_release():
    epsilon, value, n = 1.0, 3.0, 50_000
    rng = np.random.default_rng(8)
    released = laplace_regression(np.full(n, value), epsilon, 0, 9, rng)
    for end in (0.0, 9.0):
        mass = math.exp(regression_log_likelihood(np.array([end]), value, epsilon, 0, 9)[0])
        assert stats.binomtest(int(np.sum(released == end)), n, mass).pvalue > ALPHA


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: laplace_one_hot(np.array([0, 1]), 0.0, 2, np.random.default_rng()), "greater"),
        (lambda: laplace_one_hot(np.array([0, 3]), 1.0, 3, np.random.default_rng()), "0..2"),
        (
            lambda: laplace_regression(np.array([0, 10]), 1.0, 0, 9, np.random.default_rng()),
            "lie in",
        ),
        (
            lambda: laplace_regression(np.array([1.0]), 1.0, 5, 5, np.random.default_rng()),
            "low < high",
        ),
        (
            lambda: laplace_regression(np.array([np.nan]), 1.0, 0, 9, np.random.default_rng()),
            "finite",
        ),
        (lambda: laplace_regression(np.array([]), 1.0, 0, 9, np.random.default_rng()), "empty"),
        (lambda: post_process(np.zeros((2, 3)), "median"), "unknown post"),
        (lambda: clamp_normalise(np.zeros(3)), "shape"),
        (lambda: epsilon_for_noise(0.0, 0.5, 2.0), "magnitude"),
        (lambda: epsilon_for_noise(1.0, 1.0, 2.0), "probability"),
        (lambda: tail_probability(-1.0, 1.0), ">= 0"),
    ],
)
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()
