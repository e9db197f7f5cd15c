import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.model_audit.estimate import accuracy_cap, guesses_correct, score_guesses


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


def test_delta_is_taken_off_the_accuracy():
    low = score_guesses(180, 200).accuracy_low
    with_delta = score_guesses(180, 200, delta=0.01)
    assert with_delta.epsilon_lower_bound == pytest.approx(math.log((low - 0.01) / (1 - low)))


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
    # Right, wrong, a tie (counted wrong), wrong.
    assert guesses_correct(probabilities, planted, decoy) == 1
