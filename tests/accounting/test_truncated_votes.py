"""PATE's votes with truncated Laplace noise: the counts' loss and the argmax's, checked by hand.

The closed forms are checked against the Laplace CDF, against a brute-force convolution of the
pmf, against seeded draws of the project's own vote noise, and for three classes against a
brute-force sum over a grid of vote histograms.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.accounting.truncated_votes import (
    argmax_answer_probabilities,
    argmax_loss,
    argmax_loss_at,
    truncated_laplace_pmf,
    vote_counts_loss,
)
from labeldp_core.mechanisms import noisy_vote_counts

ALPHA = 1e-3
#: Noise values summed over in the brute-force checks; what lies beyond is below e^-100 at b = 2.
SUPPORT = np.arange(-200, 201)


def _pmf_from_the_cdf(values: np.ndarray, scale: float) -> np.ndarray:
    """P(int X = k) from the Laplace CDF: [k, k + 1) for k > 0, (k - 1, k] for k < 0, (-1, 1)."""
    cdf = stats.laplace(scale=scale).cdf
    positive = cdf(values + 1.0) - cdf(values)
    negative = cdf(values) - cdf(values - 1.0)
    return np.where(values > 0, positive, np.where(values < 0, negative, cdf(1.0) - cdf(-1.0)))


@pytest.mark.parametrize("scale", [0.5, 2.0, 7.0])
def test_the_pmf_is_the_truncated_laplace_one(scale):
    values = np.arange(-30, 31)
    assert np.allclose(truncated_laplace_pmf(values, scale), _pmf_from_the_cdf(values, scale))
    assert truncated_laplace_pmf(np.arange(-2000, 2001), scale).sum() == pytest.approx(1.0)


def test_the_counts_cost_two_counts_of_one_over_b_plus_ln_2():
    assert vote_counts_loss(2.0) == pytest.approx(1.0 + 2.0 * math.log(2.0), rel=1e-12)
    assert vote_counts_loss(0.5) == pytest.approx(4.0 + 2.0 * math.log(2.0), rel=1e-12)


def _brute_force_answers(gap: int, scale: float, ties: str) -> tuple[float, float]:
    """P(answer 0), P(answer 1) of the two-class argmax by summing over both noises."""
    pmf = truncated_laplace_pmf(SUPPORT, scale)
    joint = np.outer(pmf, pmf)  # [z0, z1]
    lead = gap + SUPPORT[:, None] - SUPPORT[None, :]  # n0 + z0 - (n1 + z1)
    tie = 0.5 if ties == "random" else 0.0
    one = joint[lead < 0].sum() + tie * joint[lead == 0].sum()
    zero = joint[lead > 0].sum() + (1.0 - tie) * joint[lead == 0].sum()
    return float(zero), float(one)


@pytest.mark.parametrize("ties", ["lowest", "random"])
def test_the_closed_form_answers_match_the_brute_force_sum(ties):
    gaps = np.arange(-12, 13)
    zero, one = argmax_answer_probabilities(gaps, 2.0, ties)
    for gap, p0, p1 in zip(gaps, zero, one, strict=True):
        assert (p0, p1) == pytest.approx(_brute_force_answers(int(gap), 2.0, ties), rel=1e-10)
    assert np.allclose(zero + one, 1.0)


def test_the_closed_form_answers_match_the_projects_own_truncated_draws():
    # 200,000 seeded draws of count + int(noise) per gap; a binomial test of answer 1.
    rng = np.random.default_rng(34)
    for gap in (-3, 0, 1, 4):
        counts = np.broadcast_to(np.array([gap, 0]), (200_000, 2))
        noise = noisy_vote_counts(np.zeros_like(counts), rng, laplace_scale=2.0)
        noisy = counts + np.trunc(noise)
        answered_one = int(np.sum(np.argmax(noisy, axis=1) == 1))
        expected = float(argmax_answer_probabilities(np.array([gap]), 2.0)[1][0])
        assert stats.binomtest(answered_one, 200_000, expected).pvalue > ALPHA


def test_the_argmax_costs_at_most_two_over_b_and_approaches_it():
    gaps = np.arange(-300, 303)
    for ties in ("lowest", "random"):
        losses = argmax_loss_at(gaps, 2.0, ties)
        assert np.all(losses < 1.0)  # never reached...
        assert losses.max() > 1.0 - 0.02  # ...approached as the lead grows
        assert argmax_loss_at(np.array([62]), 2.0, ties)[0] == pytest.approx(0.97, abs=0.005)
    assert argmax_loss(2.0) == 1.0
    assert argmax_loss(0.5) == 4.0


def _three_class_answers(votes: tuple[int, int, int], scale: float) -> np.ndarray:
    """P(answer i) of the three-class argmax, ties to the lowest class, summed over i's value v.

    Class i is answered at value v when every lower class is below v and every higher one at
    most v: P = sum over v of P(i at v) prod_{j < i} P(j < v) prod_{j > i} P(j <= v).
    """
    values = np.arange(min(votes) - 200, max(votes) + 201)
    point = [truncated_laplace_pmf(values - n, scale) for n in votes]
    below = [np.cumsum(p) - p for p in point]  # P(n_j + Z_j < v)
    answers = []
    for i in range(3):
        term = point[i].copy()
        for j in range(3):
            if j != i:
                term *= below[j] if j < i else below[j] + point[j]
        answers.append(term.sum())
    return np.array(answers)


def test_three_classes_on_a_grid_of_histograms_stay_below_the_two_class_supremum():
    worst = 0.0
    for second, third in itertools.product(range(-12, 13), range(-12, 13)):
        votes = (0, second, third)
        before = _three_class_answers(votes, 2.0)
        for source, target in itertools.permutations(range(3), 2):
            moved = list(votes)
            moved[source] -= 1
            moved[target] += 1
            after = _three_class_answers(tuple(moved), 2.0)
            worst = max(worst, float(np.max(np.abs(np.log(before) - np.log(after)))))
    assert 0.5 < worst < argmax_loss(2.0)
