import numpy as np
import pytest

from labeldp_core.errors import InvalidInputError
from labeldp_core.model_audit.canaries import MIN_CANARIES, canary_count, draw_canaries


def _labels(n: int = 2000, k: int = 10) -> np.ndarray:
    return np.random.default_rng(1).integers(0, k, size=n)


def test_each_canary_gets_a_wrong_label_and_a_different_wrong_decoy():
    labels = _labels()
    canaries = draw_canaries(labels, 10, 500, seed=3)
    assert len(np.unique(canaries.index)) == 500
    assert np.array_equal(canaries.true, labels[canaries.index])
    assert np.all(canaries.planted != canaries.true)
    assert np.all(canaries.decoy != canaries.true)
    assert np.all(canaries.decoy != canaries.planted)


def test_the_draw_is_seeded():
    labels = _labels()
    first, again = draw_canaries(labels, 10, 200, 5), draw_canaries(labels, 10, 200, 5)
    other = draw_canaries(labels, 10, 200, 6)
    assert np.array_equal(first.index, again.index)
    assert np.array_equal(first.planted, again.planted)
    assert not np.array_equal(first.index, other.index)


def test_the_planted_label_is_uniform_over_the_wrong_ones():
    # 9,000 canaries of class 0: each of the 9 wrong labels ~ Binomial(9000, 1/9), sd ~ 30.
    labels = np.zeros(18_000, dtype=np.int64)
    canaries = draw_canaries(labels, 10, 9_000, seed=0)
    counts = np.bincount(canaries.planted, minlength=10)
    assert counts[0] == 0
    assert np.all(np.abs(counts[1:] - 1000) < 5 * 30)
    decoys = np.bincount(canaries.decoy, minlength=10)
    assert decoys[0] == 0 and np.all(np.abs(decoys[1:] - 1000) < 5 * 30)


def test_planting_replaces_the_canaries_labels_only_and_copies():
    labels = _labels()
    labels.setflags(write=False)
    canaries = draw_canaries(labels, 10, 300, seed=0)
    planted = canaries.plant(labels)
    changed = np.flatnonzero(planted != labels)
    assert np.array_equal(changed, canaries.index)
    assert np.array_equal(planted[canaries.index], canaries.planted)


def test_the_default_count_scales_with_the_set_and_has_a_floor():
    assert canary_count(60_000) == 1000
    assert canary_count(1437) == 287
    assert canary_count(300) == MIN_CANARIES
    assert canary_count(1437, 150) == 150


@pytest.mark.parametrize(
    ("n_train", "requested", "match"),
    [
        (1437, 99, "100..718"),
        (1437, 719, "100..718"),
        (1437, 2.5, "whole number"),
        (1437, True, "whole number"),
        (150, None, "100..75"),
    ],
)
def test_bad_counts_are_refused_with_the_range(n_train, requested, match):
    with pytest.raises(InvalidInputError, match=match):
        canary_count(n_train, requested)


def test_two_classes_cannot_hold_a_canary():
    with pytest.raises(InvalidInputError, match="two wrong labels"):
        draw_canaries(np.zeros(400, dtype=np.int64), 2, 100, 0)
