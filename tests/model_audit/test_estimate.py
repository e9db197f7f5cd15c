import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.model_audit.estimate import (
    accuracy_cap,
    one_run_p_value,
    score_guesses,
)
from labeldp_core.model_audit.guesses import Guesses, guess


def test_all_guesses_right_prove_the_closed_form():
    # One-sided 95% lower end of n successes in n trials is 0.05^(1/n).
    score = score_guesses(200, 200)
    low = 0.05 ** (1 / 200)
    assert score.accuracy_low == pytest.approx(low, rel=1e-9)
    assert score.epsilon_lower_bound == pytest.approx(math.log(low / (1 - low)), rel=1e-9)


@pytest.mark.parametrize(("correct", "trials"), [(150, 200), (83, 143), (990, 1000)])
def test_the_lower_end_is_the_beta_quantile(correct, trials):
    score = score_guesses(correct, trials)
    low = stats.beta.ppf(0.05, correct, trials - correct + 1)
    assert score.accuracy_low == pytest.approx(low, rel=1e-9)
    assert score.accuracy == correct / trials
    assert score.epsilon_lower_bound == pytest.approx(math.log(low / (1 - low)), rel=1e-9)


def test_898_of_1000_canaries_is_no_violation_of_epsilon_2_at_delta_3_7e_5():
    # Issue 49, item 7: the one-run theorem (Steinke, Nasr, Jagielski 2023) adds to the
    # binomial tail P[Bin(1000, e^2/(1 + e^2)) >= 898] = 0.0492 the term 2 m delta alpha
    # = 0.0022 (m = 1,000 canaries): the p-value of (2, 3.7e-5) is 0.0514 > 0.05, so 95%
    # confidence proves no epsilon above 2. At 900 right it is 0.0338: a violation.
    assert score_guesses(898, 1000, delta=3.7e-5).epsilon_lower_bound <= 2.0
    assert score_guesses(900, 1000, delta=3.7e-5).epsilon_lower_bound > 2.0


def _paper_p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """The p-value as the paper's Appendix D computes it, term by term."""
    q = 1 / (1 + math.exp(-eps))
    beta = stats.binom.sf(v - 1, r, q)
    alpha, total = 0.0, 0.0
    for i in range(1, v + 1):
        total += stats.binom.pmf(v - i, r, q)
        alpha = max(alpha, total / i)
    return min(beta + alpha * delta * 2 * m, 1.0)


@pytest.mark.parametrize(
    ("correct", "trials", "epsilon", "delta"),
    [(898, 1000, 2.0, 3.7e-5), (180, 200, 1.5, 1e-3), (60, 100, 0.2, 0.01), (999, 1000, 6, 1e-5)],
)
def test_the_p_value_is_the_papers(correct, trials, epsilon, delta):
    expected = _paper_p_value(trials, trials, correct, epsilon, delta)
    assert one_run_p_value(trials, correct, epsilon, delta) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("correct", "trials", "delta"), [(180, 200, 1e-3), (898, 1000, 3.7e-5)])
def test_with_delta_the_bound_is_the_largest_epsilon_the_p_value_rejects(correct, trials, delta):
    bound = score_guesses(correct, trials, delta=delta).epsilon_lower_bound
    assert one_run_p_value(trials, correct, bound, delta) < 0.05
    assert one_run_p_value(trials, correct, bound + 1e-6, delta) >= 0.05
    assert bound < score_guesses(correct, trials).epsilon_lower_bound  # delta only weakens it


def test_without_delta_the_p_value_is_the_clopper_pearson_reading():
    bound = score_guesses(180, 200).epsilon_lower_bound
    assert one_run_p_value(200, 180, bound, 0.0) == pytest.approx(0.05, rel=1e-6)


@pytest.mark.parametrize(("correct", "trials"), [(0, 100), (50, 100), (58, 100)])
def test_a_coin_flip_proves_nothing(correct, trials):
    assert score_guesses(correct, trials).epsilon_lower_bound == 0.0


def test_the_cap_is_the_best_accuracy_of_a_claim():
    assert accuracy_cap(1.0) == pytest.approx(math.e / (1 + math.e))
    assert accuracy_cap(2.0, 0.01) == pytest.approx((math.exp(2) + 0.01) / (1 + math.exp(2)))
    assert accuracy_cap(50.0, 0.5) == 1.0


def test_the_bound_covers_a_known_epsilon_at_its_stated_rate():
    # Guesses at exactly the rate an eps-DP model allows: the 95% lower bound exceeds eps in
    # about 5% of audits; over 2,000 audits that is 100 +- 10, so 150 is beyond 5 sd.
    rng = np.random.default_rng(0)
    epsilon, trials = 2.0, 300
    hits = rng.binomial(trials, accuracy_cap(epsilon), size=2000)
    above = sum(score_guesses(int(h), trials).epsilon_lower_bound > epsilon for h in hits)
    assert 40 < above < 150


def test_guesses_call_the_planted_label_when_it_beats_the_decoy():
    probabilities = np.array(
        [[0.1, 0.6, 0.3], [0.1, 0.3, 0.6], [0.2, 0.4, 0.4], [0.0, 0.9, 0.1]],
    )
    planted = np.array([1, 1, 1, 2])
    decoy = np.array([2, 2, 2, 1])
    # Right, wrong, a tie (counted wrong), wrong; with a guess on every canary.
    assert guess(probabilities, planted, decoy, share=1.0) == Guesses(1, 4, 4)


def test_abstaining_keeps_the_most_confident_guesses():
    probabilities = np.array([[0.1, 0.8, 0.1], [0.1, 0.45, 0.45], [0.2, 0.1, 0.7]])
    # Scores: log 8 (right), 0 (a tie), log(0.1 / 0.7) (wrong): the tie is dropped first.
    assert guess(probabilities, np.array([1, 1, 1]), np.array([2, 2, 2]), 2 / 3) == Guesses(1, 2, 3)


def test_abstaining_keeps_the_delta_term_of_every_canary():
    # Steinke et al.'s p-value: the binomial over the guesses made, 2 m delta alpha over the m
    # canaries; fewer canaries behind the same guesses can only lower the p-value.
    fewer = one_run_p_value(500, 450, 2.0, 1e-5, guesses=500)
    more = one_run_p_value(1000, 450, 2.0, 1e-5, guesses=500)
    assert fewer < more
    assert score_guesses(450, 500, 1e-5, canaries=1000).epsilon_lower_bound <= (
        score_guesses(450, 500, 1e-5).epsilon_lower_bound
    )
