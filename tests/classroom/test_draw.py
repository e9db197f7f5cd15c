"""A round's items: true labels uniform over the classes, each label released once by the exact
secure sampler (RR, or RR with a public prior that never reads an item's own label)."""

import numpy as np
import pytest
from scipy import stats

from labeldp_core.classroom import RoundConfig, draw_items, epsilon_spent, public_prior
from labeldp_core.classroom.draw import public_split
from labeldp_core.data import Dataset, load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.rr_prior.release import prior_guess_bound
from labeldp_core.noise.randomized_response import keep_probability
from labeldp_core.noise.secure_noise import SeededSource

ROUNDS = 200  # of 50 items: 10,000 draws


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def _draws(digits, mechanism: str, epsilon: float):
    config = RoundConfig(epsilon, "digits", digits.class_names, 50, mechanism)
    rounds = [draw_items(digits, config, seed=s, source=SeededSource(s)) for s in range(ROUNDS)]
    items = [item for drawn, _ in rounds for item in drawn]
    return config, items, [bound for _, bound in rounds]


def test_true_labels_are_uniform_and_rr_keeps_them_at_its_rate(digits):
    config, items, bounds = _draws(digits, "rr", 1.0)
    truth = np.array([item.true_label for item in items])
    assert all(digits.y_train[item.index] == item.true_label for item in items)
    # Uniform over the 10 classes: a chi-square test at the 0.1% level (fixed seeds).
    assert stats.chisquare(np.bincount(truth, minlength=10)).pvalue > 1e-3
    kept = np.mean([item.true_label == item.released_label for item in items])
    keep = keep_probability(1.0, 10)
    assert abs(kept - keep) < 4 * np.sqrt(keep * (1 - keep) / len(items))
    assert set(bounds) == {config.uniform_bound}
    assert epsilon_spent(config) <= config.epsilon


def test_rr_with_prior_draws_outside_the_public_part_and_its_bound_is_the_priors(digits):
    config, items, bounds = _draws(digits, "rr-prior", 2.0)
    public, _ = public_split(digits.n_train)
    assert not np.isin([item.index for item in items], public).any()
    indices = np.array([item.index for item in items[:50]])
    priors = public_prior(digits, indices)
    assert np.allclose(priors.sum(axis=1), 1.0) and (priors > 0).all()
    assert bounds[0] == pytest.approx(prior_guess_bound(priors, 2.0))
    assert min(bounds) >= config.uniform_bound - 1e-12  # a prior only raises the bound
    kept = np.mean([item.true_label == item.released_label for item in items])
    assert kept > keep_probability(2.0, 10)  # the prior's top set keeps more than plain RR


def test_a_prior_never_reads_an_example_of_the_public_part(digits):
    public, _ = public_split(digits.n_train)
    with pytest.raises(InvalidInputError):
        public_prior(digits, public[:1])


def test_a_round_for_another_datasets_classes_is_refused(digits):
    config = RoundConfig(1.0, "other", ("a", "b"), 5)
    with pytest.raises(InvalidInputError):
        draw_items(digits, config)


def test_no_example_is_drawn_twice_so_no_label_is_released_twice(digits):
    config = RoundConfig(1.0, "digits", digits.class_names, 50)
    for seed in range(20):
        items, _ = draw_items(digits, config, seed=seed, source=SeededSource(seed))
        assert len({item.index for item in items}) == 50
    tiny = Dataset(
        "tiny",
        digits.x_train[:4],
        np.array([0, 0, 1, 1]),
        digits.x_test[:2],
        digits.y_test[:2],
        ("a", "b"),
    )
    with pytest.raises(InvalidInputError, match="ask for fewer items"):
        draw_items(tiny, RoundConfig(1.0, "tiny", ("a", "b"), 12), seed=0)
