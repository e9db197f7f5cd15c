"""The argmax of a Laplace-noised one-hot vector is K-ary randomized response (issue 54).

Every coordinate's noise is i.i.d., so the argmax is the label with probability P and each other
label with (1 - P)/(K - 1): randomized response at ln((K - 1) P / (1 - P)), the most a canary
audit of a model trained on those argmax labels can prove.
"""

import math

import numpy as np
import pytest

from labeldp_core.experiments import make_config
from labeldp_core.families.laplace_labels.audit_ceiling import argmax_epsilon, most_provable
from labeldp_core.families.laplace_labels.release import (
    argmax_accuracy,
    laplace_one_hot,
    post_process,
)

DRAWS = 200_000


def test_the_argmax_is_randomized_response_at_the_closed_form_epsilon():
    # Label 0 released 200,000 times at ε = 2 on ten classes: P(argmax = 0) = 0.257 (sd 0.001)
    # and every other class about 0.0825 (sd 0.0006 each), so each log-ratio is within 0.04
    # (about 5 sd) of the closed form 1.137.
    labels = np.zeros(DRAWS, dtype=np.int64)
    argmax = post_process(laplace_one_hot(labels, 2.0, 10, np.random.default_rng(0)), "argmax")
    shares = np.bincount(argmax, minlength=10) / DRAWS
    closed = argmax_epsilon(argmax_accuracy(2.0, 10), 10)
    assert closed == pytest.approx(1.1374, abs=1e-4)
    assert np.log(shares[0] / shares[1:]) == pytest.approx(np.full(9, closed), abs=0.04)


def test_its_epsilon_is_the_log_odds_of_telling_two_candidates_apart():
    accuracy = 0.3
    right, wrong = accuracy, (1 - accuracy) / 9
    assert argmax_epsilon(accuracy, 10) == pytest.approx(math.log(right / wrong))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
def test_the_argmax_spends_less_than_the_vector(epsilon):
    config = make_config("laplace", "fashion-mnist", epsilon, 0, 1, {})
    ceiling = most_provable(config, 60_000)
    assert ceiling == pytest.approx(argmax_epsilon(argmax_accuracy(epsilon, 10), 10))
    assert 0 < ceiling < epsilon


def test_secure_noise_reads_the_discrete_argmax():
    config = make_config("laplace", "fashion-mnist", 2.0, 0, 1, {"noise": "secure"})
    assert most_provable(config, 60_000) == pytest.approx(1.16, abs=0.01)


@pytest.mark.parametrize("post", ["soft", "round"])
def test_soft_or_rounded_targets_declare_no_ceiling(post):
    config = make_config("laplace", "fashion-mnist", 2.0, 0, 1, {"post": post})
    assert most_provable(config, 60_000) is None
