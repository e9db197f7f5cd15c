import itertools
import json
import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting import rdp
from scipy import stats

from labeldp_core import plots
from labeldp_core.accounting import zcdp
from labeldp_core.accounting.zcdp import (
    gaussian_sigma,
    rho_for_approx_dp,
    zcdp_of_pure_dp,
    zcdp_to_approx_dp,
)
from labeldp_core.data.imbalance import imbalanced_counts, imbalanced_subset
from labeldp_core.data.public_private import public_private_split
from labeldp_core.engine.context import RunContext
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.prototypes.coinpress import coinpress_mean
from labeldp_core.families.prototypes.exponential import (
    exponential_mechanism,
    exponential_probabilities,
    exponential_topk,
    topk_worst_position_probabilities,
)
from labeldp_core.families.prototypes.release import (
    SCORE_SENSITIVITY,
    class_utilities,
    cosine_scores,
    mean_budget_split,
    private_class_means,
    public_prototype_indices,
    total_rho,
)

# Fixed seeds make every test deterministic; ALPHA bounds how often a statistical test would fail
# for an arbitrary seed if the code were right.
ALPHA = 1e-3


# --- exponential mechanism -------------------------------------------------------------------


def _softmax(logits):
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


@pytest.mark.parametrize(("monotone", "factor"), [(False, 2.0), (True, 1.0)])
def test_selection_frequencies_match_softmax(monotone, factor):
    utilities = np.array([0.0, 1.0, 2.5, 3.0, 6.0, 6.5])
    epsilon, sensitivity, draws = 1.2, 2.0, 120_000
    expected = _softmax(epsilon * utilities / (factor * sensitivity))
    rng = np.random.default_rng(2024)
    chosen = exponential_mechanism(
        np.tile(utilities, (draws, 1)), epsilon, sensitivity, rng, monotone=monotone
    )
    observed = np.bincount(chosen, minlength=utilities.size)
    _, p_value = stats.chisquare(observed, draws * expected)
    assert p_value > ALPHA, (observed, draws * expected)
    # The same test has power: the other calibration is rejected.
    other = _softmax(epsilon * utilities / ((3.0 - factor) * sensitivity))
    assert stats.chisquare(observed, draws * other)[1] < ALPHA


def test_probabilities_are_stable_for_huge_utilities():
    utilities = np.array([[1e9, 1e9 - 1.0, -1e9], [5.0, 5.0, 5.0]])
    probabilities = exponential_probabilities(utilities, 100.0, 1.0)
    assert np.all(np.isfinite(probabilities))
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_allclose(probabilities[0, :2], _softmax(np.array([50.0, 0.0])))
    np.testing.assert_allclose(probabilities[1], 1 / 3)


def _max_log_ratio(log_p, log_q):
    """Largest |log P(o)/Q(o)| over joint outputs o of independent per-row selections."""
    diff = log_p - log_q
    return max(diff.max(axis=1).sum(), -diff.min(axis=1).sum())


def test_monotone_calibration_is_caught_when_utilities_move_both_ways():
    # Two neighbours whose utilities move in opposite directions (replace-one): the monotone
    # form exp(eps u) breaks the e^eps bound, the general form exp(eps u / 2) keeps it.
    epsilon = 1.0
    u, v = np.array([[0.0, 0.0]]), np.array([[1.0, -1.0]])

    def log_p(utilities, monotone):
        return np.log(exponential_probabilities(utilities, epsilon, 1.0, monotone=monotone))

    assert _max_log_ratio(log_p(u, False), log_p(v, False)) <= epsilon + 1e-12
    assert _max_log_ratio(log_p(u, True), log_p(v, True)) > epsilon * 1.2


def _brute_force_topk(utilities, k, scale):
    sets = list(itertools.combinations(range(utilities.size), k))
    weights = np.array([np.exp(scale * min(utilities[list(s)])) for s in sets])
    return sets, weights / weights.sum()


def test_topk_sampling_matches_the_joint_exponential_mechanism():
    utilities = np.array([4.0, 1.0, 3.0, 0.5, 2.0, 3.5])
    k, epsilon, draws = 3, 1.5, 30_000
    sets, expected = _brute_force_topk(utilities, k, epsilon / 2)
    chosen = exponential_topk(
        np.tile(utilities, (draws, 1)), k, epsilon, 1.0, np.random.default_rng(11)
    )
    assert np.all(np.sort(chosen, axis=1)[:, 1:] != np.sort(chosen, axis=1)[:, :-1])
    index = {s: i for i, s in enumerate(sets)}
    observed = np.bincount([index[tuple(sorted(row))] for row in chosen], minlength=len(sets))
    _, p_value = stats.chisquare(observed, draws * expected)
    assert p_value > ALPHA


def test_topk_releases_its_set_in_an_order_that_carries_no_private_information():
    # One added example scoring 1 on candidate 1 turns utilities [10, 9.5, 0, 0] into
    # [10, 10.5, 0, 0]. Ordered by utility, the release went from [0, 1] to [1, 0] with
    # probability ~1; the set {0, 1} is what the exponential mechanism protects, and given the
    # set the released order must have the same distribution on both neighbours.
    draws, rng = 20_000, np.random.default_rng(4)
    orders = {}
    for name, utilities in (("without", [10.0, 9.5, 0, 0]), ("with", [10.0, 10.5, 0, 0])):
        chosen = exponential_topk(np.tile(utilities, (draws, 1)), 2, 1.0, 1.0, rng, monotone=True)
        pair = chosen[(np.sort(chosen, axis=1) == [0, 1]).all(axis=1)]
        orders[name] = np.mean(pair[:, 0] == 0)
        assert np.all(np.diff(chosen, axis=1) > 0)  # every row sorted by candidate index
    assert orders["without"] == orders["with"] == 1.0


def test_utilities_are_exact_sums_so_an_example_moves_only_its_own_class():
    # Removing one private example changes its class's utilities by exactly its scores and the
    # other classes' utilities not at all (float32 sums moved them by ~0.002 at Fashion-MNIST
    # scale, and its own class's the wrong way in places).
    rng = np.random.default_rng(12)
    candidates, private = rng.normal(size=(300, 32)), rng.normal(size=(20_000, 32))
    labels = rng.integers(0, 10, 20_000)
    full = class_utilities(candidates, private, labels, 10, min_score=1.0, max_score=2.0)
    for removed in (0, 7_777, 19_999):
        keep = np.arange(20_000) != removed
        without = class_utilities(
            candidates, private[keep], labels[keep], 10, min_score=1.0, max_score=2.0
        )
        own = labels[removed]
        scores = cosine_scores(candidates, private[removed : removed + 1], 1.0, 2.0)[:, 0]
        others = np.arange(10) != own
        np.testing.assert_array_equal(without[others], full[others])
        np.testing.assert_array_equal(full[own] - without[own], scores)
    assert np.all((scores >= 0) & (scores <= 1))


def test_topk_worst_position_marginal_matches_brute_force():
    utilities = np.array([4.0, 3.5, 3.0, 2.0, 1.0, 0.5])  # already sorted, decreasing
    for k in (1, 2, 4):
        sets, probabilities = _brute_force_topk(utilities, k, 0.8)
        marginal = np.zeros(utilities.size)
        for s, p in zip(sets, probabilities, strict=True):
            marginal[max(s)] += p
        computed = topk_worst_position_probabilities(utilities, k, 0.8, 1.0, monotone=True)
        np.testing.assert_allclose(computed[0], marginal, rtol=1e-12, atol=1e-15)


def test_bad_inputs_name_the_problem():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="finite"):
        exponential_mechanism(np.array([0.0, np.nan]), 1.0, 1.0, rng)
    with pytest.raises(InvalidInputError, match="greater than 0"):
        exponential_mechanism(np.array([0.0, 1.0]), 0.0, 1.0, rng)
    with pytest.raises(InvalidInputError, match="sensitivity"):
        exponential_mechanism(np.array([0.0, 1.0]), 1.0, -1.0, rng)
    with pytest.raises(InvalidInputError, match="larger than the number"):
        exponential_topk(np.array([0.0, 1.0]), 3, 1.0, 1.0, rng)
    with pytest.raises(InvalidInputError, match="min_score"):
        cosine_scores(np.ones((1, 2)), np.ones((1, 2)), 1.5, 1.0)


# --- DPPL-Public: utilities and exact privacy -------------------------------------------------


def test_vectorised_utilities_equal_a_per_candidate_loop():
    rng = np.random.default_rng(3)
    candidates, private = rng.normal(size=(7, 5)), rng.normal(size=(40, 5))
    labels = rng.integers(0, 3, size=40)
    fast = class_utilities(candidates, private, labels, 3, min_score=0.5, max_score=1.8)
    slow = np.zeros((3, 7))
    for p, c in enumerate(candidates):
        for e, y in zip(private, labels, strict=True):
            cos = c @ e / np.linalg.norm(c) / np.linalg.norm(e)
            slow[y, p] += (np.clip(1 + cos, 0.5, 1.8) - 0.5) / 1.3
    np.testing.assert_allclose(fast, slow, rtol=1e-5)


def _release_log_probs(private, labels, candidates, epsilon, num_classes, window):
    utilities = class_utilities(
        candidates, private, labels, num_classes, min_score=window[0], max_score=window[1]
    )
    return np.log(exponential_probabilities(utilities, epsilon, SCORE_SENSITIVITY, monotone=True))


@pytest.mark.parametrize("window", [(0.0, 2.0), (1.0, 2.0)])
def test_dppl_public_probability_ratio_within_e_epsilon_under_add_remove(window):
    rng = np.random.default_rng(5)
    k, epsilon = 3, 0.7
    candidates, private = rng.normal(size=(6, 4)), rng.normal(size=(12, 4))
    labels = rng.integers(0, k, size=12)
    base = _release_log_probs(private, labels, candidates, epsilon, k, window)
    worst = 0.0
    for i in range(len(labels)):  # remove one example
        keep = np.arange(len(labels)) != i
        other = _release_log_probs(private[keep], labels[keep], candidates, epsilon, k, window)
        worst = max(worst, _max_log_ratio(base, other))
    for point in [*rng.normal(size=(4, 4)), candidates[0], -candidates[0]]:  # add one
        for label in range(k):
            other = _release_log_probs(
                np.vstack([private, point]),
                np.append(labels, label),
                candidates,
                epsilon,
                k,
                window,
            )
            worst = max(worst, _max_log_ratio(base, other))
    assert worst <= epsilon + 1e-9


def test_dppl_public_bound_is_tight_and_replace_one_costs_twice():
    # Candidates e1 and -e1 with the score window [1, 2]: an example at e1 scores 1 with the
    # first candidate and 0 with the second, the largest possible change. Class 0 sits at -e1,
    # class 1 at e1.
    epsilon, k = 1.0, 2
    candidates = np.array([[1.0, 0.0], [-1.0, 0.0]])
    private = np.array([[-1.0, 0.0]] * 10 + [[1.0, 0.0]] * 10)
    labels = np.array([0] * 10 + [1] * 10)
    window = (1.0, 2.0)
    base = _release_log_probs(private, labels, candidates, epsilon, k, window)
    added = _release_log_probs(
        np.vstack([private, [1.0, 0.0]]), np.append(labels, 0), candidates, epsilon, k, window
    )
    add_remove = _max_log_ratio(base, added)
    assert 0.99 * epsilon < add_remove <= epsilon + 1e-12
    # Replace-one moving an example from class 1 (at e1) to class 0: both rows change.
    before = np.vstack([private, [1.0, 0.0]])
    moved = _release_log_probs(before, np.append(labels, 1), candidates, epsilon, k, window)
    moved_to = _release_log_probs(before, np.append(labels, 0), candidates, epsilon, k, window)
    replace = _max_log_ratio(moved, moved_to)
    assert 1.9 * epsilon < replace <= 2 * epsilon + 1e-12


def test_topk_probability_ratio_within_e_epsilon_under_add_remove():
    rng = np.random.default_rng(8)
    epsilon, k = 0.9, 2
    candidates, private = rng.normal(size=(5, 3)), rng.normal(size=(8, 3))

    def set_log_probs(points):
        utilities = class_utilities(candidates, points, np.zeros(len(points), int), 2)[0]
        return np.log(_brute_force_topk(utilities, k, epsilon)[1])  # monotone: exp(eps u)

    base = set_log_probs(private)
    for i in range(len(private)):
        assert np.abs(base - set_log_probs(np.delete(private, i, axis=0))).max() <= epsilon + 1e-9
    for point in rng.normal(size=(5, 3)):
        assert np.abs(base - set_log_probs(np.vstack([private, point]))).max() <= epsilon + 1e-9


def test_public_prototypes_sample_the_monotone_exponential_mechanism():
    utilities = np.array([[0.0, 2.0, 3.0], [5.0, 1.0, 0.0]])
    epsilon, draws = 0.8, 40_000
    rng = np.random.default_rng(21)
    # Rows are independent instances, so many copies of the two classes sample in one call.
    picks = public_prototype_indices(np.tile(utilities, (draws, 1)), epsilon, rng)
    picks = picks[:, 0].reshape(draws, 2)
    expected = exponential_probabilities(utilities, epsilon, 1.0, monotone=True)
    for row in range(2):
        observed = np.bincount(picks[:, row], minlength=3)
        assert stats.chisquare(observed, draws * expected[row])[1] > ALPHA / 2
    assert public_prototype_indices(utilities, epsilon, rng, k=2).shape == (2, 2)


# --- CoinPress and DPPL-Mean ------------------------------------------------------------------


def _cluster(rng, n, d, spread):
    direction = np.eye(d)[0]
    points = direction + spread * rng.normal(size=(n, d)) / math.sqrt(d)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


@pytest.mark.parametrize("steps", [1, 2, 4])
def test_coinpress_with_a_huge_budget_recovers_the_true_mean(steps):
    rng = np.random.default_rng(1)
    points = _cluster(rng, 500, 8, 0.3)
    true_mean = points.mean(axis=0)
    spread = 1.05 * np.linalg.norm(points - true_mean, axis=1).max()  # nothing gets clipped
    trace = coinpress_mean(points, [1e12] * steps, len(points), rng, spread=spread)
    np.testing.assert_allclose(trace.mean, true_mean, atol=1e-6)
    if steps > 1:
        assert trace.clip_radii[0] == 1.0 and trace.clip_radii[-1] < 0.9  # the ball shrank


def test_coinpress_one_step_noise_is_gaussian_with_the_calibrated_scale():
    rng = np.random.default_rng(4)
    points = _cluster(rng, 200, 4, 0.5)
    true_mean, rho = points.mean(axis=0), 0.3
    errors = []
    for _ in range(2000):
        trace = coinpress_mean(points, [rho], len(points), rng)
        assert trace.noise_sds[0] == pytest.approx(1.0 / math.sqrt(2 * rho))  # Delta = bound = 1
        errors.append((trace.mean - true_mean) * len(points) / trace.noise_sds[0])
    _, p_value = stats.kstest(np.ravel(errors), "norm")
    assert p_value > ALPHA


def test_coinpress_accepts_no_points_and_rejects_bad_input():
    rng = np.random.default_rng(0)
    trace = coinpress_mean(np.empty((0, 3)), [0.5], 1.0, rng)
    assert trace.mean.shape == (3,) and np.all(np.isfinite(trace.mean))
    with pytest.raises(InvalidInputError, match="step_rhos"):
        coinpress_mean(np.ones((2, 3)), [], 2.0, rng)
    with pytest.raises(InvalidInputError, match="finite"):
        coinpress_mean(np.full((2, 3), np.nan), [1.0], 2.0, rng)


def test_dppl_mean_rho_meets_the_epsilon_asked_at_its_delta():
    # rho = epsilon^2/2 gave (5.3, 1e-5)-DP for epsilon 1; the calibrated rho gives at most 1.
    for delta in (1e-5, 1e-8):
        for epsilon in [round(0.05 * i, 2) for i in range(1, 200)]:
            rho = rho_for_approx_dp(epsilon, delta)
            assert zcdp_to_approx_dp(rho, delta) <= epsilon
            assert zcdp_to_approx_dp(rho * (1 + 1e-9), delta) > epsilon  # and nothing is left
    assert zcdp_to_approx_dp(zcdp_of_pure_dp(1.0), 1e-5) > 5  # the old calibration


@pytest.mark.parametrize("split", [(1.0, 3, 0.2), (0.0208, 2, 0.1), (0.173, 5, 0.37)])
def test_dppl_mean_budget_parts_never_sum_above_rho(split):
    rho, steps, share = split
    count_rho, step_rhos = mean_budget_split(rho, steps, share)
    assert total_rho(count_rho, step_rhos) <= rho
    assert total_rho(count_rho, step_rhos) == pytest.approx(rho, rel=1e-14)


def test_dppl_mean_count_noise_has_the_sd_its_rho_pays_for():
    # With two steps each class's count is released with N(0, 1/(2 count_rho)) noise: counts of
    # 200 are far from the floor of 1, so noisy - true is that noise exactly.
    rng = np.random.default_rng(9)
    classes, rho, share = 2_000, 0.02, 0.25
    embeddings = rng.normal(size=(classes * 200, 2))
    labels = np.repeat(np.arange(classes), 200)
    release = private_class_means(embeddings, labels, classes, rho, rng, steps=2, count_share=share)
    noise = release.noisy_counts - 200
    sd = 1.0 / math.sqrt(2 * release.count_rho)
    assert release.count_rho == pytest.approx(share * rho)
    # The sample variance of n normals has relative standard error sqrt(2/n); 4.5 of them.
    assert abs(noise.var() / sd**2 - 1) < 4.5 * math.sqrt(2 / classes)
    assert abs(noise.mean()) < 4.5 * sd / math.sqrt(classes)


def test_class_means_at_once_equal_one_class_at_a_time():
    # The release treats all classes in one pass; each class is still its own CoinPress run.
    rng = np.random.default_rng(2)
    embeddings, labels = rng.normal(size=(60, 3)), np.repeat(np.arange(3), 20)
    huge = private_class_means(embeddings, labels, 3, 1e12, rng, steps=2)
    for c in range(3):
        alone = coinpress_mean(
            embeddings[labels == c], list(huge.step_rhos), float(huge.noisy_counts[c]), rng
        )
        np.testing.assert_allclose(huge.prototypes[c], alone.mean, atol=1e-4)


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_dppl_mean_spends_exactly_rho_per_class(steps):
    rng = np.random.default_rng(6)
    embeddings, labels = rng.normal(size=(60, 5)), np.repeat(np.arange(3), 20)
    release = private_class_means(embeddings, labels, 3, 0.125, rng, steps=steps)
    assert release.rho == pytest.approx(0.125, rel=1e-12)
    assert len(release.step_rhos) == steps and release.prototypes.shape == (3, 5)
    assert (release.noisy_counts is None) == (steps == 1)


# --- accounting -------------------------------------------------------------------------------


@pytest.mark.parametrize("rho", [0.005, 0.5, 2.0])
def test_zcdp_conversion_is_the_best_renyi_order_and_no_tighter_than_dp_accounting(rho):
    delta = 1e-5
    alphas = 1 + np.geomspace(1e-4, 1e4, 200_001)
    numeric = np.min(alphas * rho + math.log(1 / delta) / (alphas - 1))
    assert zcdp_to_approx_dp(rho, delta) == pytest.approx(numeric, rel=1e-6)
    accountant = rdp.RdpAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(gaussian_sigma(1.0, rho)))
    tighter = accountant.get_epsilon(delta)
    assert tighter <= zcdp_to_approx_dp(rho, delta) <= 1.3 * tighter


def test_pure_dp_to_zcdp_closed_form():
    assert zcdp_of_pure_dp(0.1) == pytest.approx(0.005)
    assert zcdp.gaussian_zcdp(2.0, gaussian_sigma(2.0, 0.3)) == pytest.approx(0.3)
    assert zcdp.group_zcdp(0.5, 2) == 2.0
    assert zcdp.group_zcdp(0.5, 3) == 4.5  # k^2 rho: at k = 2 a doubling would pass too


# --- data: imbalance and public/private split -------------------------------------------------


@pytest.mark.parametrize("ratio", [1.0, 2.0, 10.0, 37.5, 100.0])
def test_imbalance_generator_yields_the_requested_ratio(ratio):
    largest, k = 1000, 10
    counts = imbalanced_counts(largest, ratio, k)
    decay = math.log(ratio) / (k - 1)
    np.testing.assert_array_equal(counts, np.rint(largest * np.exp(-decay * np.arange(k))))
    assert counts.max() == largest and counts.min() == round(largest / ratio)
    # Rounding the smallest class moves the ratio by at most half an example's worth.
    assert abs(counts.max() / counts.min() - ratio) <= ratio * 0.5 / (largest / ratio - 0.5)


def test_imbalanced_subset_keeps_the_counts_and_shuffles_the_class_order_by_seed():
    labels = np.repeat(np.arange(10), 300)
    subset = imbalanced_subset(labels, 10, 10.0, np.random.default_rng(0))
    assert subset.ratio == 10.0
    np.testing.assert_array_equal(np.bincount(labels[subset.indices], minlength=10), subset.counts)
    assert len(set(subset.indices.tolist())) == len(subset.indices)
    assert subset.counts[subset.order[0]] == 300 and subset.counts[subset.order[-1]] == 30
    orders = {
        tuple(imbalanced_subset(labels, 10, 10.0, np.random.default_rng(s)).order) for s in range(5)
    }
    assert len(orders) > 1
    balanced = imbalanced_subset(labels, 10, 1.0, np.random.default_rng(0))
    assert set(balanced.counts.tolist()) == {300}


@pytest.mark.parametrize("ratio", [0.5, float("nan"), 1e6])
def test_bad_imbalance_ratios_are_rejected(ratio):
    with pytest.raises(InvalidInputError, match="ratio"):
        imbalanced_subset(np.repeat(np.arange(3), 10), 3, ratio, np.random.default_rng(0))


def test_public_private_split_is_disjoint_and_fixed_by_the_seed():
    public, private = public_private_split(100, 0.2, np.random.default_rng(9))
    assert len(public) == 20 and not set(public) & set(private)
    assert sorted([*public, *private]) == list(range(100))
    again, _ = public_private_split(100, 0.2, np.random.default_rng(9))
    np.testing.assert_array_equal(public, again)


# --- experiments ------------------------------------------------------------------------------


def test_dppl_runs_report_the_guarantee_they_computed_and_share_the_encoder(cache, monkeypatch):
    trainings = []
    original = RunContext.train

    def counting(self, *args, **kwargs):
        trainings.append(kwargs.get("message"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RunContext, "train", counting)
    settings = {"imbalance": 10, "model": "mlp"}  # the MLP encoder trains fastest on digits
    results = {
        m: run(make_config(m, "digits", 10.0, epochs=20, settings=settings), cache)
        for m in ("dppl-mean", "dppl-public", "dppl-topk")
    }
    assert len(trainings) == 1  # one encoder, cached for the other two mechanisms
    for result in results.values():
        data = result.to_dict()
        json.dumps(data, allow_nan=False)
        assert result.privacy_unit == "example" and "add/remove" in data["details"]["neighbouring"]
        assert result.test_accuracy > 0.5 and result.baseline_test_accuracy > 0.5  # chance: 0.1
        details = result.details
        assert details["realised_imbalance"] == pytest.approx(10.0, rel=0.1)
        assert result.n_train == sum(details["class_counts"])
        assert len(details["per_class_accuracy"]) == 10 and len(details["minority_classes"]) == 3
    mean = results["dppl-mean"]
    # rho is calibrated so that its (epsilon, delta) meets the budget asked for.
    assert mean.delta == 1e-5 and mean.details["rho"] <= rho_for_approx_dp(10.0, 1e-5)
    assert mean.epsilon_spent == zcdp_to_approx_dp(mean.details["rho"], 1e-5) <= 10.0
    assert mean.epsilon_spent == pytest.approx(10.0, rel=1e-12)
    assert mean.details["epsilon_replace_one"] > mean.epsilon_spent
    for name in ("dppl-public", "dppl-topk"):
        assert results[name].epsilon_spent == 10.0 and results[name].delta == 0.0
        assert results[name].details["epsilon_replace_one"] == 20.0
    assert np.shape(results["dppl-topk"].details["prototype_train_indices"]) == (10, 3)
    again = run(make_config("dppl-public", "digits", 10.0, epochs=20, settings=settings), cache)
    assert again.cached and again.test_accuracy == results["dppl-public"].test_accuracy


def test_a_balanced_dppl_run_says_its_epsilon_covers_the_subsample_cut_by_class(cache):
    settings = {"imbalance": 1, "model": "mlp"}
    result = run(make_config("dppl-public", "digits", 10.0, epochs=20, settings=settings), cache)
    counts = result.details["class_counts"]
    # Even at imbalance 1 the private set is cut by class (to the smallest class's size), a
    # choice made from the true labels: epsilon covers that subsample, not the private part.
    assert min(counts) == max(counts) and result.n_train == sum(counts)
    assert "subsample" in result.details["guarantee_scope"]
    assert "imbalance 1" in result.details["guarantee_scope"]


def test_dppl_settings_are_checked():
    with pytest.raises(InvalidInputError, match="choose one of"):
        make_config("dppl-mean", "digits", 1.0, settings={"model": "logistic"})
    with pytest.raises(InvalidInputError, match="at least 1"):
        make_config("dppl-public", "digits", 1.0, settings={"imbalance": 0.5})
    # An empty score window is refused when the config is made, before the encoder trains.
    with pytest.raises(InvalidInputError, match="min_score"):
        make_config("dppl-public", "digits", 1.0, settings={"min_score": 1.5, "max_score": 1.0})


# --- plots ------------------------------------------------------------------------------------


def test_prototype_mosaic_places_every_image():
    images = np.random.default_rng(0).random((3, 2, 4, 4))
    heatmap = plots.prototype_mosaic(images, ["x", "y", "z"], ["pick", "best"]).data[0]
    z = np.asarray(heatmap.z, dtype=float)
    assert z.shape == (3 * 6, 2 * 6)
    np.testing.assert_array_equal(z[6:10, 6:10], images[1, 1])


# --- page -------------------------------------------------------------------------------------

PAGE = "pages/dppl.py"
