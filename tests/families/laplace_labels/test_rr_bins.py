"""RR-on-bins: the optimal bins, their closed-form error, the release and its privacy."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.families.laplace_labels.rr_bins_release import transition_probabilities
from labeldp_core.mechanisms import (
    RRBins,
    best_constant_mse,
    expected_squared_error,
    optimal_bins,
    rr_bins_epsilon,
    rr_on_bins,
)

ALPHA = 1e-3
Z = stats.norm.ppf(1 - ALPHA / 2)
DIGITS = np.arange(10, dtype=float)
UNIFORM = np.full(10, 0.1)
SKEWED = np.array([0.30, 0.20, 0.12, 0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.02])


def _best_outputs(values, prior, assignment, m, epsilon):
    """Best output of each bin of any (not necessarily monotone) assignment, by calculus."""
    lam = math.exp(-epsilon)
    mean = prior @ values
    outputs = []
    for j in range(m):
        inside = assignment == j
        weight = (1 - lam) * prior[inside].sum()
        outputs.append(((1 - lam) * prior[inside] @ values[inside] + lam * mean) / (weight + lam))
    return np.array(outputs)


@pytest.mark.parametrize("epsilon", [0.1, 0.7, 1.5, 3.0, 6.0])
@pytest.mark.parametrize("prior_index", [0, 1, 2])
def test_dynamic_programme_matches_brute_force_over_all_assignments(epsilon, prior_index):
    # Every map of 5 values onto bins, monotone or not: the DP's answer is the true optimum.
    values = np.array([0.0, 1.0, 2.5, 3.0, 7.0])
    prior = [
        np.full(5, 0.2),
        np.array([0.5, 0.1, 0.1, 0.1, 0.2]),
        np.array([0.05, 0.6, 0, 0.3, 0.05]),
    ][prior_index]
    best = math.inf
    for assignment in itertools.product(range(5), repeat=5):
        # One representative per set partition: bins numbered in order of first use.
        if any(a > max(assignment[:i], default=-1) + 1 for i, a in enumerate(assignment)):
            continue
        relabelled = np.array(assignment)
        m = relabelled.max() + 1
        outputs = _best_outputs(values, prior, relabelled, m, epsilon)
        best = min(
            best, expected_squared_error(RRBins(values, relabelled, outputs, epsilon), prior)
        )
    found = optimal_bins(values, prior, epsilon)
    assert np.all(np.diff(found.bin_of_value) >= 0)  # monotone
    assert expected_squared_error(found, prior) == pytest.approx(best, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    weights=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=12).filter(lambda w: sum(w) > 0.01),
    epsilon=st.floats(0.01, 20.0),
)
def test_never_worse_than_the_prior_s_best_single_value(weights, epsilon):
    prior = np.asarray(weights) / sum(weights)
    values = np.arange(len(weights), dtype=float)
    bins = optimal_bins(values, prior, epsilon)
    assert expected_squared_error(bins, prior) <= best_constant_mse(values, prior) + 1e-12
    assert bins.outputs.min() >= values.min() - 1e-9 and bins.outputs.max() <= values.max() + 1e-9


@pytest.mark.parametrize(
    ("prior", "epsilon"), [(UNIFORM, 0.5), (UNIFORM, 2.0), (SKEWED, 1.0), (SKEWED, 4.0)]
)
def test_closed_form_mse_matches_simulation(prior, epsilon):
    rng = np.random.default_rng(21)
    bins = optimal_bins(DIGITS, prior, epsilon)
    labels = rng.choice(10, size=60_000, p=prior).astype(float)
    squared = (rr_on_bins(labels, bins, rng) - labels) ** 2
    expected = expected_squared_error(bins, prior)
    assert abs(squared.mean() - expected) < Z * squared.std() / math.sqrt(squared.size)


def test_release_distribution_matches_the_transition_matrix():
    rng = np.random.default_rng(9)
    bins = optimal_bins(DIGITS, SKEWED, 3.0)
    matrix = transition_probabilities(bins)
    per_value = 20_000
    for value in (0, 4, 9):
        released = rr_on_bins(np.full(per_value, float(value)), bins, rng)
        index = np.searchsorted(bins.outputs, released)
        observed = np.bincount(index, minlength=bins.num_bins)
        _, p_value = stats.chisquare(observed, per_value * matrix[value])
        assert p_value > ALPHA / 3


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 5.0])
def test_release_is_exactly_epsilon_label_dp(epsilon):
    bins = optimal_bins(DIGITS, UNIFORM, epsilon)
    matrix = transition_probabilities(bins)
    ratios = matrix[:, None, :] / matrix[None, :, :]
    if bins.num_bins >= 2:
        assert ratios.max() == pytest.approx(math.exp(epsilon), rel=1e-12)
    assert ratios.max() <= math.exp(rr_bins_epsilon(bins.num_bins, epsilon)) * (1 + 1e-12)


def test_one_bin_releases_the_mean_and_spends_nothing():
    bins = optimal_bins(DIGITS, UNIFORM, 0.001)
    assert bins.num_bins == 1 or expected_squared_error(bins, UNIFORM) < best_constant_mse(
        DIGITS, UNIFORM
    )
    single = RRBins(DIGITS, np.zeros(10, dtype=int), np.array([4.5]), 1.0)
    assert expected_squared_error(single, UNIFORM) == pytest.approx(8.25)
    assert best_constant_mse(DIGITS, UNIFORM) == pytest.approx(8.25)
    assert rr_bins_epsilon(1, 1.0) == 0.0 and rr_bins_epsilon(2, 1.0) == 1.0
    released = rr_on_bins(DIGITS, single, np.random.default_rng(0))
    np.testing.assert_array_equal(released, 4.5)


def test_large_epsilon_gives_every_value_its_own_bin():
    bins = optimal_bins(DIGITS, SKEWED, 30.0)
    assert bins.num_bins == 10
    np.testing.assert_allclose(bins.outputs, DIGITS, atol=1e-6)


def test_bins_grow_with_epsilon():
    counts = [optimal_bins(DIGITS, UNIFORM, e).num_bins for e in (0.5, 2.0, 4.0, 8.0, 20.0)]
    assert counts == sorted(counts) and counts[0] < counts[-1]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: optimal_bins([0.0, 2.0, 1.0], [0.3, 0.3, 0.4], 1.0), "increasing"),
        (lambda: optimal_bins([0.0, 1.0], [0.3, 0.3], 1.0), "sum to one"),
        (lambda: optimal_bins([0.0, 1.0], [0.3, 0.3, 0.4], 1.0), "one probability per value"),
        (lambda: optimal_bins([0.0, 1.0], [0.5, 0.5], 0.0), "greater than 0"),
        (
            lambda: rr_on_bins(
                np.array([0.5]), optimal_bins(DIGITS, UNIFORM, 1.0), np.random.default_rng()
            ),
            "one of the values",
        ),
    ],
)
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()
