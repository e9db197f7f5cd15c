import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import (
    expected_keep_probability,
    keep_probability,
    optimal_set_size,
    output_probabilities,
    rr_with_prior,
    set_keep_probability,
    transition_matrix,
)

# Fixed seeds make these tests deterministic; ALPHA bounds how often a correct mechanism would fail
# them for an arbitrary seed (Bonferroni over the rows tested together).
ALPHA = 1e-3
# Ratios are compared with this relative slack: floating-point rounding, not privacy.
RATIO_SLACK = 1e-12

FIXED_PRIOR = np.array([0.4, 0.25, 0.15, 0.1, 0.05, 0.03, 0.02, 0.0, 0.0, 0.0])


@st.composite
def priors(draw, max_classes=6):
    """A prior row over 2..max_classes labels, with exact ties and zeros drawn often."""
    k = draw(st.integers(2, max_classes))
    if draw(st.booleans()):
        weights = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
    else:
        weights = draw(st.lists(st.floats(0, 1), min_size=k, max_size=k))
    weights = np.asarray(weights, dtype=float)
    if weights.sum() == 0:
        weights[draw(st.integers(0, k - 1))] = 1.0
    return weights / weights.sum()


epsilons = st.floats(0.01, 12.0)


def brute_force_best(prior: np.ndarray, epsilon: float) -> tuple[float, list[int]]:
    """Best chance of keeping the true label over every subset S of labels, and the best sizes.

    For a set S of size k, RR inside S keeps a true label in S with probability
    e^eps/(e^eps+k-1), so the chance of reporting the true label is prior(S) times that.
    """
    e = math.exp(epsilon)
    by_size = {}
    for k in range(1, len(prior) + 1):
        by_size[k] = max(
            sum(prior[list(subset)]) * e / (e + k - 1)
            for subset in itertools.combinations(range(len(prior)), k)
        )
    best = max(by_size.values())
    return best, [k for k, value in by_size.items() if value >= best * (1 - 1e-9)]


def exact_matrix(prior: np.ndarray, epsilon: float) -> np.ndarray:
    """P[true a, output o] of RR-with-prior for one prior row, from the closed form."""
    k = prior.shape[0]
    return output_probabilities(np.tile(prior, (k, 1)), np.arange(k), epsilon)


# --- closed-form facts --------------------------------------------------------------------------


def test_set_keep_probability_matches_closed_form():
    for epsilon in (0.1, 1.0, 5.0):
        for k in (1, 2, 7):
            expected = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
            assert float(set_keep_probability(k, epsilon)) == pytest.approx(expected, rel=1e-13)


def test_set_size_is_a_size_not_an_index():
    # e^eps = 2: k=1 keeps 0.5, k=2 keeps 0.8 * 2/3 = 0.533, k=3 keeps 1 * 2/4 = 0.5, so k* = 2.
    # Using index i (size i+1) with the keep probability of size i would pick k = 1 here.
    assert optimal_set_size(np.array([[0.5, 0.3, 0.2]]), math.log(2)).tolist() == [2]
    assert expected_keep_probability(np.array([[0.5, 0.3, 0.2]]), math.log(2))[0] == (
        pytest.approx(0.8 * 2 / 3, rel=1e-13)
    )


@settings(max_examples=300, deadline=None)
@given(prior=priors(), epsilon=epsilons)
def test_optimal_set_size_equals_brute_force(prior, epsilon):
    best, best_sizes = brute_force_best(prior, epsilon)
    chosen = int(optimal_set_size(prior[None, :], epsilon)[0])
    assert chosen in best_sizes
    assert chosen == min(best_sizes)  # ties go to the smallest set
    assert expected_keep_probability(prior[None, :], epsilon)[0] == pytest.approx(best, rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(prior=priors(), epsilon=epsilons)
def test_every_pair_of_true_labels_is_within_e_epsilon_exactly(prior, epsilon):
    matrix = exact_matrix(prior, epsilon)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=1e-12)
    bound = math.exp(epsilon) * (1 + RATIO_SLACK)
    # For every output o and true labels a, b: P(o | a) <= e^eps P(o | b) (zeros included).
    assert np.all(matrix[:, None, :] <= bound * matrix[None, :, :])
    # The outputs are the top-k* labels of the prior, ties broken towards smaller labels.
    k = int(optimal_set_size(prior[None, :], epsilon)[0])
    top = np.argsort(-prior, kind="stable")[:k]
    np.testing.assert_array_equal(np.flatnonzero(matrix.sum(axis=0) > 0), np.sort(top))


def test_privacy_bound_is_tight_when_the_set_has_two_labels_or_more():
    matrix = exact_matrix(FIXED_PRIOR, 1.0)
    assert int(optimal_set_size(FIXED_PRIOR[None, :], 1.0)[0]) >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = matrix[:, None, :] / matrix[None, :, :]
    assert np.nanmax(ratios[np.isfinite(ratios)]) == pytest.approx(math.e, rel=1e-12)


def test_a_label_dependent_set_breaks_the_bound_and_the_check_sees_it():
    # Putting the true label into the set (what a prior that read the label would do) gives
    # P(a | a) > 0 but P(a | b) = 0 for a label a outside b's set: an unbounded ratio.
    honest = exact_matrix(FIXED_PRIOR, 1.0)
    leaky = honest.copy()
    leaky[9] = 0.0
    leaky[9, 9] = 1.0  # label 9 (prior 0) would be reported as itself
    bound = math.e * (1 + RATIO_SLACK)
    assert not np.all(leaky[:, None, :] <= bound * leaky[None, :, :])


def test_uniform_prior_reduces_to_plain_rr():
    k = 10
    uniform = np.full((k, k), 1.0 / k)
    for epsilon in (0.1, 1.0, 4.0):
        assert optimal_set_size(uniform, epsilon).tolist() == [k] * k
        np.testing.assert_allclose(
            output_probabilities(uniform, np.arange(k), epsilon),
            transition_matrix(epsilon, k),
            rtol=1e-13,
        )
        np.testing.assert_allclose(
            expected_keep_probability(uniform, epsilon), keep_probability(epsilon, k), rtol=1e-13
        )


def test_uniform_prior_samples_like_rr():
    k, per_label, epsilon = 10, 10_000, 1.0
    labels = np.repeat(np.arange(k), per_label)
    released = rr_with_prior(
        labels, np.full((labels.size, k), 0.1), epsilon, np.random.default_rng(3)
    )
    matrix = transition_matrix(epsilon, k)
    for true_label in range(k):
        observed = np.bincount(released[labels == true_label], minlength=k)
        _, p_value = stats.chisquare(observed, per_label * matrix[true_label])
        assert p_value > ALPHA / k, (true_label, observed)


# --- sampling -----------------------------------------------------------------------------------


def _observed(prior: np.ndarray, true_label: int, epsilon: float, n: int, seed: int) -> np.ndarray:
    labels = np.full(n, true_label)
    released = rr_with_prior(labels, np.tile(prior, (n, 1)), epsilon, np.random.default_rng(seed))
    return np.bincount(released, minlength=prior.shape[0])


# True labels: the prior's favourite, another member of the set, one outside the set.
@pytest.mark.parametrize("true_label", [0, 1, 6])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_output_distribution_matches_the_closed_form(true_label, epsilon):
    n = 30_000
    observed = _observed(FIXED_PRIOR, true_label, epsilon, n, seed=100 + true_label)
    expected = n * exact_matrix(FIXED_PRIOR, epsilon)[true_label]
    support = expected > 0
    assert observed[~support].sum() == 0  # nothing outside the top-k* set, ever
    _, p_value = stats.chisquare(observed[support], expected[support])
    assert p_value > ALPHA / 9, (observed, expected)


# FIXED_PRIOR at eps = 1, by hand. Keep chances e/(e + k - 1) for k = 1, 2, 3: 1, 0.7311, 0.5761;
# times the top-k mass 0.4, 0.65, 0.8: 0.4, 0.4752, 0.4609 (k = 4 gives 0.9 * 0.4754 = 0.4278,
# and more labels add less mass than the keep chance loses), so k* = 2 and the set is {0, 1}.
# A true label in the set is kept with e/(e+1) and becomes the other member with 1/(e+1); a true
# label outside the set becomes either member with 1/2. Nothing else is ever released.
_E = math.e
HAND_ROWS = {
    0: [_E / (_E + 1), 1 / (_E + 1)] + [0.0] * 8,
    1: [1 / (_E + 1), _E / (_E + 1)] + [0.0] * 8,
    6: [0.5, 0.5] + [0.0] * 8,
}


@pytest.mark.parametrize("true_label", sorted(HAND_ROWS))
def test_output_distribution_matches_rows_derived_by_hand(true_label):
    expected_row = np.array(HAND_ROWS[true_label])
    np.testing.assert_allclose(exact_matrix(FIXED_PRIOR, 1.0)[true_label], expected_row, rtol=1e-13)
    n = 30_000
    observed = _observed(FIXED_PRIOR, true_label, 1.0, n, seed=200 + true_label)
    assert observed[2:].sum() == 0
    _, p_value = stats.chisquare(observed[:2], n * expected_row[:2])
    assert p_value > ALPHA / len(HAND_ROWS), observed


def test_the_distribution_check_catches_a_wrong_epsilon():
    n = 30_000
    observed = _observed(FIXED_PRIOR, 1, 1.2, n, seed=101)
    expected = n * exact_matrix(FIXED_PRIOR, 1.0)[1]
    support = expected > 0
    # The same set (k* = 2) at both budgets, so only the keep rate differs: 0.769 vs 0.731.
    row = FIXED_PRIOR[None, :]
    assert optimal_set_size(row, 1.0)[0] == optimal_set_size(row, 1.2)[0] == 2
    _, p_value = stats.chisquare(observed[support], expected[support])
    assert p_value < ALPHA


def test_many_different_priors_in_one_call_each_follow_their_own_row():
    rng = np.random.default_rng(0)
    n, k, epsilon = 40_000, 5, 1.0
    rows = rng.dirichlet(np.full(k, 0.5), size=8)
    which = rng.integers(0, 8, size=n)
    labels = rng.integers(0, k, size=n)
    released = rr_with_prior(labels, rows[which], epsilon, rng)
    probabilities = output_probabilities(rows[which], labels, epsilon)
    assert np.all(probabilities[np.arange(n), released] > 0)
    # Expected vs observed number of kept labels over all rows: a binomial-sum check at 5 sigma.
    keep = probabilities[np.arange(n), labels]
    kept = np.sum(released == labels)
    assert abs(kept - keep.sum()) < 5 * math.sqrt(np.sum(keep * (1 - keep)))


def test_a_confident_prior_reports_its_favourite_and_same_seed_same_output():
    prior = np.array([[0.97, 0.01, 0.01, 0.01]] * 500)
    labels = np.tile(np.arange(4), 125)
    first = rr_with_prior(labels, prior, 1.0, np.random.default_rng(7))
    assert optimal_set_size(prior, 1.0)[0] == 1
    assert first.dtype == np.int64 and np.all(first == 0)
    mixed = np.random.default_rng(1).dirichlet(np.ones(4), size=500)
    again = [rr_with_prior(labels, mixed, 1.0, np.random.default_rng(7)) for _ in range(2)]
    np.testing.assert_array_equal(*again)


def test_float32_softmax_rows_are_accepted():
    logits = np.random.default_rng(0).normal(size=(100, 10)).astype(np.float32)
    softmax = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    released = rr_with_prior(np.arange(100) % 10, softmax, 1.0, np.random.default_rng(0))
    assert released.shape == (100,)


@pytest.mark.parametrize(
    ("labels", "priors", "epsilon", "match"),
    [
        ([0, 1], [[0.5, 0.5], [0.7, 0.2]], 1.0, "sum to 1"),
        ([0, 1], [[1.2, -0.2], [0.5, 0.5]], 1.0, "non-negative"),
        ([0, 1], [[np.nan, 0.5], [0.5, 0.5]], 1.0, "finite"),
        ([0, 1], [0.5, 0.5], 1.0, "2-D"),
        ([0], [[1.0]], 1.0, "at least 2 columns"),
        ([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]], 1.0, "one row per example"),
        ([0, 2], [[0.5, 0.5], [0.5, 0.5]], 1.0, "0..1"),
        ([0, 1], [["a", "b"], ["c", "d"]], 1.0, "real numbers"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], 0.0, "greater than 0"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], float("inf"), "finite"),
    ],
)
def test_bad_input_names_the_problem(labels, priors, epsilon, match):
    with pytest.raises(InvalidInputError, match=match):
        rr_with_prior(np.asarray(labels), np.asarray(priors), epsilon, np.random.default_rng(0))


def test_secure_mode_needs_no_generator_and_float_mode_refuses_a_seed():
    # Written for a surviving mutant that checked the generator in the wrong mode.
    labels = np.arange(10) % 3
    priors = np.full((10, 3), 1 / 3)
    released = rr_with_prior(labels, priors, 1.0, None, noise="secure")
    assert released.shape == labels.shape and set(released.tolist()) <= {0, 1, 2}
    with pytest.raises(InvalidInputError, match=r"rng must be a numpy\.random\.Generator"):
        rr_with_prior(labels, priors, 1.0, 0)


@pytest.mark.parametrize("num_classes", [65, 100])
def test_more_classes_than_the_sorting_network_takes_give_the_brute_force_sets(num_classes):
    # Above 64 classes the top-k sets come from np.sort, not the sorting network: mutants of
    # that path survived while every test used at most a few dozen classes.
    rng = np.random.default_rng(num_classes)
    priors_ = rng.dirichlet(np.full(num_classes, 0.3), size=6)
    labels = rng.integers(0, num_classes, size=6)
    for epsilon in (0.5, 2.0, 6.0):
        chosen = optimal_set_size(priors_, epsilon)
        expected = expected_keep_probability(priors_, epsilon)
        for row, k, keep in zip(priors_, chosen, expected, strict=True):
            # The best set of each size is the top of the prior (the subsets themselves are too
            # many to try at 65 classes), so sort and scan the sizes.
            top = np.cumsum(np.sort(row)[::-1])
            sizes = np.arange(1, num_classes + 1)
            values = top * math.exp(epsilon) / (math.exp(epsilon) + sizes - 1)
            assert k == 1 + int(np.argmax(values >= values.max() * (1 - 1e-9)))
            assert keep == pytest.approx(values.max(), rel=1e-12)
        released = rr_with_prior(labels, priors_, epsilon, rng)
        assert released.shape == labels.shape and released.max() < num_classes


@given(
    st.lists(st.lists(st.integers(0, 4), min_size=5, max_size=5), min_size=1, max_size=30),
    st.floats(0.05, 6.0),
)
def test_the_top_set_has_exactly_k_star_members_even_among_tied_priors(weights, epsilon):
    # Priors on a coarse grid tie often; the set must hold exactly k* labels (a tie group is
    # taken whole or not at all, since along equal priors the keep chance is monotone).
    from labeldp_core.families.rr_prior.release import _check_priors, _top_sets

    counts = np.asarray(weights, dtype=np.float64) + 0.0
    counts[counts.sum(axis=1) == 0] = 1.0
    columns = _check_priors(counts / counts.sum(axis=1, keepdims=True))
    sizes, in_set = _top_sets(columns, epsilon)
    np.testing.assert_array_equal(in_set.sum(axis=0), sizes)
    assert np.all(in_set[columns.argmax(axis=0), np.arange(sizes.size)])  # the top label is in
