"""Guess the label: the rounds, the tally against the bound, RR's two neighbouring outputs."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.classroom import guessing
from labeldp_core.classroom.guessing import GuessTally, draw_round, output_distributions
from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError


def test_answering_the_released_label_reaches_the_bound_and_no_better():
    labels = load_dataset("digits").y_train
    epsilon, rounds = 1.0, 4000
    rng = np.random.default_rng(0)
    hits = sum(
        (r := draw_round(labels, 10, epsilon, rng)).released_label == r.true_label
        for _ in range(rounds)
    )
    bound = math.e / (math.e + 9)
    # Two-sided binomial test at 1e-3: the released label is right exactly as often as RR keeps.
    assert stats.binomtest(hits, rounds, bound).pvalue > 1e-3


def test_a_seeded_generator_repeats_a_round_and_none_draws_from_secrets(monkeypatch):
    labels = load_dataset("digits").y_train
    first = draw_round(labels, 10, 2.0, np.random.default_rng(7))
    assert first == draw_round(labels, 10, 2.0, np.random.default_rng(7))
    assert first.true_label == labels[first.index]
    drawn = [draw_round(labels, 10, 2.0) for _ in range(50)]
    assert len({r.index for r in drawn}) > 40  # 50 of ~1,400 examples: a repeat pair is rare
    seeds = iter([11, 11, 12])
    monkeypatch.setattr(guessing.secrets, "randbits", lambda bits: next(seeds))
    same, again, other = (draw_round(labels, 10, 2.0) for _ in range(3))
    assert same == again and same != other  # the round comes from secrets, nothing else
    with pytest.raises(InvalidInputError, match="epsilon"):
        draw_round(labels, 10, -1.0)


def test_the_tally_counts_and_its_interval_holds_the_rate():
    tally = GuessTally(0, 0, 1.0, 10)
    assert tally.interval() == (0.0, 1.0)
    for hit in (True, False, True, True):
        tally = tally.add(hit)
    assert (tally.hits, tally.rounds) == (3, 4)
    low, high = tally.interval()
    assert low < 0.75 < high and tally.bound == pytest.approx(math.e / (math.e + 9))


@pytest.mark.parametrize(("epsilon", "classes"), [(0.1, 10), (1.0, 2), (3.0, 5)])
def test_neighbour_outputs_differ_by_exactly_e_epsilon_at_most(epsilon, classes):
    first, second = output_distributions(epsilon, classes)
    assert first.sum() == pytest.approx(1) and second.sum() == pytest.approx(1)
    ratios = np.maximum(first / second, second / first)
    assert ratios.max() == pytest.approx(math.exp(epsilon))
    assert np.allclose(ratios[2:], 1.0)
