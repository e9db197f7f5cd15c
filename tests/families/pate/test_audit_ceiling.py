"""The most any canary design can prove of PATE's release (issue 54, item 3).

One label moves at most one teacher's vote on each query, so the Q noisy vote-count vectors under
the two candidate labels differ by a shift of L2 norm at most sqrt(2Q); with Gaussian noise of
sigma on every count no test tells them apart more often than Phi(sqrt(Q/2) / sigma).
"""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.data import load_dataset
from labeldp_core.experiments import make_config
from labeldp_core.families.pate.audit_ceiling import best_guess_accuracy, most_provable


def test_the_best_test_between_one_moved_vote_per_query_reaches_the_bound():
    # The likelihood-ratio test on the noisy counts of Q queries, each with one vote moved.
    queries, sigma, trials = 8, 3.0, 20_000
    rng = np.random.default_rng(0)
    shift = np.zeros((queries, 3))
    shift[:, 0], shift[:, 1] = 0.5, -0.5  # label y': +1/2; label k: -1/2 (a moved vote)
    label = rng.integers(0, 2, trials) * 2 - 1
    noisy = label[:, None, None] * shift + rng.normal(0, sigma, (trials, queries, 3))
    right = int(np.sum(np.sign(np.sum(noisy * shift, axis=(1, 2))) == label))
    expected = best_guess_accuracy(queries, sigma)
    assert expected == pytest.approx(stats.norm.cdf(math.sqrt(queries / 2) / sigma))
    low, high = stats.binom.interval(0.999, trials, expected)
    assert low <= right <= high


def test_the_threshold_check_of_confident_gnmax_adds_its_own_shift():
    plain = best_guess_accuracy(300, 50.0)
    assert best_guess_accuracy(300, 50.0, threshold_sigma=150.0) > plain


def test_on_the_fashion_mnist_recipe_no_design_proves_a_fifth_of_the_claim():
    # 300 queries at ε = 2: sigma 52.6, right at most Phi(sqrt(150) / 52.6) = 59.2% of the time.
    config = make_config("pate", "fashion-mnist", 2.0)
    ceiling = most_provable(config, load_dataset("fashion-mnist").n_train)
    assert 0 < ceiling < 2.0 / 5


@pytest.mark.parametrize("settings", [{"aggregator": "lnmax"}, {"noise": "secure"}])
def test_no_ceiling_is_claimed_where_the_gaussian_bound_does_not_apply(settings):
    config = make_config("pate", "digits", 1.0, settings=settings)
    assert most_provable(config, load_dataset("digits").n_train) is None
