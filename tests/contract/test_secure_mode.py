"""Secure noise mode: exact discrete noise in the mechanisms, their privacy, accounting and runs.

Distributions are checked with SeededSource and fixed seeds (chi-square / binomial at ALPHA);
privacy by exact pmf ratios of neighbouring inputs; runs on digits end to end.
"""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from labeldp_core.__main__ import main
from labeldp_core.accounting import pate_epsilon
from labeldp_core.accounting.discrete_tails import (
    log_gaussian_difference_tail,
    log_gaussian_survival,
    log_laplace_difference_tail,
)
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.pate.accounting_bounds import (
    log_q_gnmax_discrete,
    log_q_lnmax_discrete,
)
from labeldp_core.mechanisms import (
    alibi_posterior,
    confident_gnmax,
    discrete_argmax_accuracy,
    discrete_laplace_pmf,
    discrete_one_hot_log_pmf,
    expected_discrete_regression_mse,
    laplace_one_hot,
    laplace_regression,
    noisy_argmax,
    noisy_label_counts,
    post_process,
)
from labeldp_core.noise.secure_noise import (
    SeededSource,
    guaranteed_epsilon,
    rational_at_least,
    rational_scale,
    rational_variance,
)

ALPHA = 1e-3  # fixed seeds make these deterministic; alpha bounds a false alarm for any seed


def laplace_pmf(values: np.ndarray, scale: Fraction | float) -> np.ndarray:
    """P(Z = z) proportional to exp(-|z| / scale) on the integers."""
    return discrete_laplace_pmf(values, 1.0 / float(scale))


def chi_square(draws: np.ndarray, pmf, low: int, high: int) -> float:
    """p-value of integer draws against ``pmf`` on low..high, the two tails pooled into bins."""
    support = np.arange(low, high + 1)
    inside = np.array([np.sum(draws == v) for v in support])
    observed = np.concatenate([[np.sum(draws < low)], inside, [np.sum(draws > high)]])
    probabilities = pmf(support)
    below = pmf(np.arange(low - 2000, low)).sum()
    above = 1.0 - probabilities.sum() - below
    expected = np.concatenate([[below], probabilities, [above]]) * draws.size
    keep = expected > 0
    expected = expected[keep] * draws.size / expected[keep].sum()
    return float(stats.chisquare(observed[keep], expected).pvalue)


# --- release functions: distributions ---------------------------------------------------------


def test_secure_one_hot_noise_is_discrete_laplace_at_the_rounded_up_scale():
    epsilon, labels = 0.7, np.tile(np.arange(10), 6000)
    noisy = laplace_one_hot(labels, epsilon, 10, None, noise="secure", source=SeededSource(1))
    assert np.all(noisy == np.round(noisy))  # integer vectors
    noise = (noisy - np.eye(10)[labels]).astype(np.int64).ravel()
    scale = rational_scale(2, epsilon)
    assert chi_square(noise, lambda z: laplace_pmf(z, scale), -25, 25) > ALPHA


def test_secure_regression_release_has_the_clamped_discrete_law():
    value, epsilon = 3, 2.0
    released = laplace_regression(
        np.full(100_000, value), epsilon, 0, 9, None, noise="secure", source=SeededSource(2)
    )
    scale = rational_scale(9, epsilon)
    pmf = _clamped_pmf(value, scale, 0, 9)
    observed = np.bincount(released.astype(np.int64), minlength=10)
    assert stats.chisquare(observed, pmf * released.size).pvalue > ALPHA


def test_secure_histogram_noise_is_discrete_laplace_for_sensitivity_two():
    groups = np.repeat(np.arange(400), 5)
    labels = np.tile(np.arange(5), 400)
    counts = noisy_label_counts(
        groups, labels, 400, 5, 1.3, None, noise="secure", source=SeededSource(3)
    )
    noise = (counts - 1).ravel()
    scale = rational_scale(2, 1.3)
    assert counts.dtype == np.int64
    assert chi_square(noise, lambda z: laplace_pmf(z, scale), -8, 8) > ALPHA


def test_secure_argmax_accuracy_matches_its_closed_form():
    epsilon, k = 1.5, 10
    labels = np.tile(np.arange(k), 4000)
    rng = np.random.default_rng(4)
    noisy = laplace_one_hot(labels, epsilon, k, rng, noise="secure", source=SeededSource(4))
    hits = int(np.sum(post_process(noisy, "argmax", rng) == labels))
    expected = discrete_argmax_accuracy(float(rational_scale(2, epsilon)), k)
    assert stats.binomtest(hits, labels.size, expected).pvalue > ALPHA


@pytest.mark.parametrize(("scale", "k"), [(0.7, 2), (2.0, 2), (2.0, 3)])
def test_discrete_argmax_accuracy_by_enumeration(scale, k):
    # Every noise vector on a wide grid, ties shared equally among the tied classes.
    z = np.arange(-60, 61)
    p = laplace_pmf(z, scale)
    grids = np.meshgrid(*([z] * k), indexing="ij")
    weights = np.prod(np.meshgrid(*([p] * k), indexing="ij"), axis=0)
    values = np.stack(grids, axis=-1).astype(float)
    values[..., 0] += 1.0
    top = values.max(axis=-1, keepdims=True)
    tied = (values == top).sum(axis=-1)
    brute = float(np.sum(weights * (values[..., 0] == top[..., 0]) / tied))
    assert discrete_argmax_accuracy(scale, k) == pytest.approx(brute, rel=1e-9)


def test_expected_discrete_regression_mse_by_direct_sum():
    scale, low, high = 3.25, 0, 9
    for value in range(10):
        z = np.arange(-4000, 4001)
        released = np.clip(value + z, low, high)
        direct = float(np.sum(laplace_pmf(z, scale) * (released - value) ** 2))
        got = float(expected_discrete_regression_mse(np.array([value]), scale, low, high)[0])
        assert got == pytest.approx(direct, rel=1e-10)


# --- exact privacy ratios -----------------------------------------------------------------------


def _clamped_pmf(value: int, scale: Fraction, low: int, high: int) -> np.ndarray:
    """P(release = o) for o = low..high: discrete Laplace around value, ends collect the tails."""
    z = np.arange(-5000, 5001)
    released = np.clip(value + z, low, high)
    return np.bincount(released - low, weights=laplace_pmf(z, scale), minlength=high - low + 1)


def test_secure_one_hot_pmf_ratio_is_at_most_e_to_the_guaranteed_epsilon():
    epsilon, k = 0.9, 3
    scale = rational_scale(2, epsilon)
    spent = guaranteed_epsilon(2, scale)
    grid = np.stack(np.meshgrid(*([np.arange(-6, 8)] * k)), axis=-1).reshape(-1, k)
    log_ratio = discrete_one_hot_log_pmf(grid, 0, float(scale)) - discrete_one_hot_log_pmf(
        grid, 2, float(scale)
    )
    assert spent <= epsilon
    assert log_ratio.max() <= spent + 1e-12
    assert log_ratio.max() == pytest.approx(spent, rel=1e-12)  # attained: nothing to spare
    # and the pmf is a pmf: summing one coordinate's law over a wide range gives 1
    assert laplace_pmf(np.arange(-500, 501), scale).sum() == pytest.approx(1.0, rel=1e-12)


def test_secure_regression_pmf_ratio_is_at_most_e_to_the_guaranteed_epsilon():
    epsilon, low, high = 1.1, 0, 9
    scale = rational_scale(high - low, epsilon)
    spent = guaranteed_epsilon(high - low, scale)
    laws = np.array([_clamped_pmf(v, scale, low, high) for v in range(low, high + 1)])
    log_ratios = np.log(laws[:, None, :]) - np.log(laws[None, :, :])
    assert log_ratios.max() <= spent + 1e-12
    assert log_ratios.max() == pytest.approx(spent, rel=1e-9)  # the end values at distance 9


def test_secure_histogram_pmf_ratio_for_a_replaced_label():
    # One label moves from class 0 to class 1: two counts move by 1 each (L1 sensitivity 2).
    epsilon = 0.6
    scale = rational_scale(2, epsilon)
    spent = guaranteed_epsilon(2, scale)
    out0, out1 = np.meshgrid(np.arange(-30, 40), np.arange(-30, 40), indexing="ij")
    before = laplace_pmf(out0 - 5, scale) * laplace_pmf(out1 - 3, scale)
    after = laplace_pmf(out0 - 4, scale) * laplace_pmf(out1 - 4, scale)
    log_ratio = np.log(before / after)
    assert np.abs(log_ratio).max() == pytest.approx(spent, rel=1e-9)
    assert np.abs(log_ratio).max() <= epsilon


def _answers_one(pmf: np.ndarray, gap: int) -> float:
    """P(a two-class noisy argmax answers class 1) for counts (n + gap, n), ties halved.

    ``pmf`` is the noise's law on -200..200; D = Z1 - Z0 must reach the gap.
    """
    difference = np.convolve(pmf, pmf)
    d = np.arange(-400, 401)
    return float(difference[d > gap].sum() + 0.5 * difference[d == gap].sum())


def test_secure_lnmax_output_ratio_is_at_most_two_over_b():
    scale = float(rational_at_least(1.7))
    pmf = laplace_pmf(np.arange(-200, 201), scale)
    worst = 0.0
    for gap in range(-6, 8):  # one teacher moves a vote: the gap changes by 2
        p, q = _answers_one(pmf, gap), _answers_one(pmf, gap - 2)
        worst = max(worst, abs(math.log(p / q)), abs(math.log((1 - p) / (1 - q))))
    assert worst <= 2.0 / scale + 1e-12


@pytest.mark.parametrize("sigma", [0.4, 1.3, 6.0])
def test_discrete_gaussian_renyi_divergence_is_at_most_the_continuous_one(sigma):
    # GNMax's accounting charges alpha Δ²/(2 sigma²) per count moved by Δ = 1 (CKS 2020, Prop. 5);
    # check it on the exact pmfs of N_Z(0, sigma²) and N_Z(1, sigma²), at sigma² as drawn.
    variance = float(rational_variance(sigma))
    x = np.arange(-400, 401)
    log_p = -(x**2) / (2 * variance)
    log_q = -((x - 1.0) ** 2) / (2 * variance)
    log_z = np.logaddexp.reduce(log_p)  # the same for both: the shift is an integer
    for alpha in (1.01, 1.5, 2.0, 7.5, 40.0):
        moment = np.logaddexp.reduce(alpha * log_p + (1 - alpha) * log_q) - log_z
        divergence = moment / (alpha - 1)
        continuous = alpha / (2 * variance)
        assert divergence <= continuous + 1e-12  # rounding of the 801-term sums
        if sigma >= 1:
            assert divergence > 0.99 * continuous  # tight: the bound is not vacuous here


# --- PATE mechanisms and accounting -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["lnmax", "gnmax"])
def test_secure_noisy_argmax_changes_the_answer_as_the_discrete_law_says(kind):
    gap, n = 3, 60_000
    counts = np.tile([[10 + gap, 10]], (n, 1))
    rng = np.random.default_rng(5)
    if kind == "lnmax":
        scale = 2.0
        labels = noisy_argmax(
            counts, rng, laplace_scale=scale, noise="secure", source=SeededSource(5)
        )
        log_tail = log_laplace_difference_tail
        exact = float(rational_at_least(scale))
    else:
        scale = 2.5
        labels = noisy_argmax(
            counts, rng, gaussian_sigma=scale, noise="secure", source=SeededSource(5)
        )
        log_tail = log_gaussian_difference_tail
        exact = math.sqrt(float(rational_variance(scale)))
    at_least, above = np.exp(log_tail(np.array([gap, gap + 1]), exact))
    expected = above + 0.5 * (at_least - above)  # ties broken at random
    assert stats.binomtest(int(labels.sum()), n, expected).pvalue > ALPHA
    # the union bound the accounting uses counts the whole tie against the plurality
    assert (
        math.exp(
            log_q_lnmax_discrete(counts[:1], exact)[0]
            if kind == "lnmax"
            else log_q_gnmax_discrete(counts[:1], exact)[0]
        )
        >= expected
    )


def test_secure_confident_gnmax_answers_as_often_as_the_discrete_threshold_says():
    n, threshold, sigma1 = 60_000, 14.5, 3.0
    counts = np.tile([[12, 3, 1]], (n, 1))
    labels = confident_gnmax(
        counts,
        np.random.default_rng(6),
        threshold=threshold,
        threshold_sigma=sigma1,
        gaussian_sigma=1.0,
        noise="secure",
        source=SeededSource(6),
    )
    exact = math.sqrt(float(rational_variance(sigma1)))
    expected = math.exp(log_gaussian_survival(np.array([threshold - 12]), exact)[0])
    assert stats.binomtest(int(np.sum(labels != -1)), n, expected).pvalue > ALPHA


def test_secure_noise_needs_integer_counts():
    with pytest.raises(InvalidInputError, match="integer vote counts"):
        noisy_argmax(
            np.array([[1.5, 2.0]]), np.random.default_rng(0), laplace_scale=1.0, noise="secure"
        )
    with pytest.raises(InvalidInputError, match="fractional parts"):
        laplace_regression(np.array([0.5, 1.0]), 1.0, 0, 9, None, noise="secure")
    with pytest.raises(InvalidInputError, match="noise must be one of"):
        laplace_one_hot(np.array([0, 1]), 1.0, 2, np.random.default_rng(0), noise="exact")


@pytest.mark.parametrize(
    ("aggregator", "extra"),
    [
        ("lnmax", {}),
        ("gnmax", {}),
        ("confident-gnmax", {"threshold": 35.0, "threshold_sigma": 9.0}),
    ],
)
def test_discrete_accounting_keeps_the_data_independent_bound_and_tightens_with_agreement(
    aggregator, extra
):
    rng = np.random.default_rng(7)
    top = rng.integers(40, 50, 300)
    counts = np.stack([top, 50 - top, np.zeros_like(top)], axis=1)
    noise = 3.0 if aggregator == "lnmax" else 5.0
    common = {"aggregator": aggregator, "noise": noise, **extra}
    continuous = pate_epsilon(counts, 1e-5, data_dependent=False, **common)
    discrete = pate_epsilon(counts, 1e-5, data_dependent=False, discrete=True, **common)
    assert discrete == continuous
    dependent = pate_epsilon(counts, 1e-5, discrete=True, **common)
    assert dependent < discrete


# --- ALIBI with discrete noise ----------------------------------------------------------------


def test_alibi_posterior_of_a_discrete_vector_by_hand():
    # b = 1 (epsilon 2): class 0 explains o = (1, 0, 0) with no noise, classes 1 and 2 need
    # noise +1 and -1 on two coordinates, a factor e^-2: posterior (e^2, 1, 1) / (e^2 + 2).
    posterior = alibi_posterior(np.array([[1.0, 0.0, 0.0]]), 2.0)[0]
    e2 = math.exp(2.0)
    assert posterior == pytest.approx([e2 / (e2 + 2), 1 / (e2 + 2), 1 / (e2 + 2)], rel=1e-12)
    # Two coordinates reached 1 and a prior (0.5, 0.3, 0.2): (0.5 e, 0.3 e, 0.2 e^-1) normalised.
    posterior = alibi_posterior(np.array([[3.0, 1.0, -2.0]]), 2.0, np.array([0.5, 0.3, 0.2]))[0]
    weights = np.array([0.5 * math.e, 0.3 * math.e, 0.2 / math.e])
    assert posterior == pytest.approx(weights / weights.sum(), rel=1e-12)


def test_alibi_posterior_equals_the_discrete_likelihood_posterior():
    scale = rational_scale(2, 0.8)
    rng = np.random.default_rng(8)
    noisy = laplace_one_hot(
        rng.integers(0, 4, 50), 0.8, 4, rng, noise="secure", source=SeededSource(8)
    )
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    likelihood = np.stack(
        [np.prod(laplace_pmf(noisy - np.eye(4)[k], scale), axis=1) for k in range(4)], axis=1
    )
    brute = likelihood * prior / (likelihood * prior).sum(axis=1, keepdims=True)
    got = alibi_posterior(noisy, guaranteed_epsilon(2, scale), prior)
    np.testing.assert_allclose(got, brute, rtol=1e-9)


# --- experiments end to end on digits ---------------------------------------------------------

FAST = {"model": "logistic", "noise": "secure"}


def _run(mechanism, epsilon, cache, epochs=1, **settings):
    return run(make_config(mechanism, "digits", epsilon, 0, epochs, FAST | settings), cache)


@pytest.mark.parametrize(("mechanism", "sensitivity"), [("laplace", 2), ("laplace-regression", 9)])
def test_secure_laplace_runs_report_the_exact_scale_and_its_epsilon(cache, mechanism, sensitivity):
    result = _run(mechanism, 0.3, cache)
    json.dumps(result.to_dict(), allow_nan=False)
    scale = rational_scale(sensitivity, 0.3)
    assert result.details["noise_mode"] == "secure"
    assert result.details["noise_scale_exact"] == str(scale)
    assert result.epsilon_spent == guaranteed_epsilon(sensitivity, scale) < 0.3


def test_secure_laplace_learns_at_large_epsilon(cache):
    result = _run("laplace", 8.0, cache, epochs=5, model="mlp")
    assert result.test_accuracy > 0.5  # chance is 0.1
    assert result.epsilon_spent == 8.0  # 2/8 = 1/4 is a fraction already: nothing rounded


@pytest.mark.parametrize("mechanism", ["rr-bins", "alibi"])
def test_secure_histogram_prior_budget_adds_up_to_at_most_epsilon(cache, mechanism):
    result = _run(mechanism, 0.7, cache, prior="histogram", prior_share=0.3)
    budget = result.details["budget"]
    prior_spent = guaranteed_epsilon(2, rational_scale(2, 0.3 * 0.7))
    assert budget[0]["epsilon"] == prior_spent < 0.21
    assert str(rational_scale(2, 0.3 * 0.7)) in budget[0]["mechanism"]
    assert budget[-1]["epsilon"] == result.epsilon_spent <= 0.7
    assert result.details["noise_mode"] == "secure"


def test_secure_rr_prior_gives_rr_exactly_what_the_histograms_left(cache):
    result = _run("rr-prior", 1.0, cache, clusters=5, prior_share=0.3)
    budget = result.details["budget"]
    exact = rational_scale(2, 0.3)
    assert budget["prior_epsilon"] == guaranteed_epsilon(2, exact)
    assert budget["prior_epsilon"] + budget["rr_epsilon"] == result.epsilon_spent <= 1.0
    assert result.epsilon_spent == pytest.approx(1.0, abs=1e-12)  # nothing left unspent
    assert result.details["histogram_noise_scale_exact"] == str(exact)


def test_secure_pate_accounts_for_the_noise_actually_drawn(cache):
    small = {"teachers": 5, "teacher_epochs": 1, "queries": 60}
    for aggregator in ("lnmax", "gnmax", "confident-gnmax"):
        result = _run("pate", 3.0, cache, aggregator=aggregator, **small)
        details = result.details
        assert details["noise_mode"] == "secure"
        assert details["noise"] >= details["noise_calibrated"]
        assert result.epsilon_spent <= 3.0
        assert result.epsilon_spent == details["epsilon_data_independent"]
        assert details["epsilon_data_dependent"] <= result.epsilon_spent + 1e-12
        assert "Canonne" in details["secure_accounting"]
        if aggregator == "lnmax":
            assert details["noise_scale_exact"] == str(
                rational_at_least(details["noise_calibrated"])
            )
        else:
            variance = rational_variance(details["noise_calibrated"])
            assert details["noise_variance_exact"] == str(variance)
            # The sigma accounted for is the exact one rounded down: never less loss reported.
            assert Fraction(details["noise"]) ** 2 <= variance
            assert details["noise"] == pytest.approx(math.sqrt(float(variance)), rel=1e-15)


def test_cli_accepts_the_noise_setting(capsys):
    args = [
        "run",
        "laplace",
        "--dataset",
        "digits",
        "--epsilon",
        "1",
        "--epochs",
        "1",
        "--set",
        "model=logistic",
        "--set",
        "noise=secure",
        "--json",
    ]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["settings"]["noise"] == "secure"
    assert result["details"]["noise_mode"] == "secure"
    assert result["epsilon_spent"] == 1.0
    assert main([*args[:-2], "noise=quantum"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: setting noise=quantum is not allowed; choose one of: float, secure"
    ]
