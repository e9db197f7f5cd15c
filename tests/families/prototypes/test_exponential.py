"""The exponential mechanism's defaults and edges (labeldp_core/families/prototypes/exponential.py).

Written for mutants that survived `make mutation`: a default of ``monotone=True`` halves the
noise (it spends 2 epsilon on non-monotone utilities) and no test called the functions without
naming ``monotone``.
"""

import numpy as np
import pytest

from labeldp_core.errors import InvalidInputError
from labeldp_core.families.prototypes.exponential import (
    exponential_mechanism,
    exponential_probabilities,
    exponential_topk,
    topk_worst_position_probabilities,
)

UTILITIES = np.array([0.0, 1.0])
EPSILON = 2.0
#: P(item 1) for utilities (0, 1), epsilon 2, sensitivity 1: e^(eps/2) / (1 + e^(eps/2)) in
#: general, e^eps / (1 + e^eps) if monotone.
GENERAL, MONOTONE = np.e / (1 + np.e), np.e**2 / (1 + np.e**2)
DRAWS = 20_000
#: Five standard errors of a share near 0.75 over DRAWS draws (about 0.015); the two
#: calibrations are 0.15 apart.
TOLERANCE = 5 * np.sqrt(0.25 * 0.75 / DRAWS)


def test_the_default_is_the_general_mechanism_not_the_monotone_one():
    rng = np.random.default_rng(7)
    chosen = exponential_mechanism(np.tile(UTILITIES, (DRAWS, 1)), EPSILON, 1.0, rng)
    assert abs(chosen.mean() - GENERAL) < TOLERANCE
    assert exponential_probabilities(UTILITIES, EPSILON, 1.0)[0, 1] == pytest.approx(GENERAL)
    worst = topk_worst_position_probabilities(UTILITIES[::-1][None, :], 1, EPSILON, 1.0)
    assert worst[0, 0] == pytest.approx(GENERAL)


@pytest.mark.parametrize(("monotone", "expected"), [(False, GENERAL), (True, MONOTONE)])
def test_topk_follows_the_calibration_it_is_given(monotone, expected):
    rng = np.random.default_rng(8)
    chosen = exponential_topk(
        np.tile(UTILITIES, (DRAWS, 1)), 1, EPSILON, 1.0, rng, monotone=monotone
    )
    assert abs(chosen[:, 0].mean() - expected) < TOLERANCE


def test_topk_of_many_items_takes_its_other_members_from_better_positions_only():
    # Utilities ten apart at epsilon 20: any set but the top 3 has probability below e^-50,
    # so every row must be {0, 1, 2}. Many items make the selection of the k-1 better members
    # reach past the first few positions, where a wrong partition index picks others.
    utilities = np.tile(-10 * np.arange(40.0), (500, 1))
    chosen = exponential_topk(utilities, 3, 20.0, 1.0, np.random.default_rng(10))
    assert np.all(chosen == [0, 1, 2])


def test_k_may_be_every_item_and_one_item_is_a_valid_instance():
    rng = np.random.default_rng(9)
    everything = exponential_topk(np.array([[3.0, 1.0, 2.0]]), 3, 1.0, 1.0, rng)
    assert everything.tolist() == [[0, 1, 2]]
    assert exponential_mechanism(np.array([[5.0]]), 1.0, 1.0, rng).tolist() == [0]
    assert exponential_topk(np.array([5.0]), 1, 1.0, 1.0, rng).tolist() == [[0]]


@pytest.mark.parametrize("shape", [(0,), (2, 0), (2, 2, 2)])
def test_utilities_of_another_shape_are_refused(shape):
    with pytest.raises(InvalidInputError, match="non-empty 1-D array"):
        exponential_mechanism(np.zeros(shape), 1.0, 1.0, np.random.default_rng(0))
