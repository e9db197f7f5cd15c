"""The scale of words for a guarantee (issue 53): each word's ε, at and just past each boundary."""

import math

import pytest

from labeldp_core.accounting.privacy_scale import SCALE, band_of
from labeldp_core.accounting.risk import guess_bound, odds_multiplier, risk_of, scale_sentence
from labeldp_core.errors import InvalidInputError


@pytest.mark.parametrize(
    ("epsilon", "word"),
    [
        (1e-6, "strong"),
        (1.0, "strong"),
        (math.nextafter(1.0, 2.0), "moderate"),
        (2.0, "moderate"),
        (math.nextafter(2.0, 3.0), "weak"),
        (5.0, "weak"),
        (math.nextafter(5.0, 6.0), "very weak"),
        (1e6, "very weak"),
    ],
)
def test_each_band_includes_its_upper_end_and_no_more(epsilon, word):
    assert band_of(epsilon).word == word


def test_the_issues_examples_get_the_words_their_numbers_earn():
    # 7.2x odds is ε 1.97: moderate on this scale (up to 2: 7.4x); an 83% guess from 1/10 is
    # ε 3.8: weak, not moderate.
    assert f"{odds_multiplier(1.97):.1f}" == "7.2" and band_of(1.97).word == "moderate"
    assert f"{guess_bound(3.8, 10):.0%}" == "83%" and band_of(3.8).word == "weak"
    assert "weak privacy" in risk_of(3.8, 10).line() and "moderate" not in risk_of(3.8, 10).line()
    assert risk_of(1.0, 10, "example").strength_word() == "moderate"  # read as ε 2 for a label


def test_the_scale_is_stated_with_the_numbers_each_upper_end_means():
    sentence = scale_sentence(10)
    for band in SCALE[:-1]:
        odds = risk_of(band.upto, 10).odds_text
        guess = f"{guess_bound(band.upto, 10):.1%}"
        assert f"{band.word}" in sentence and f"ε = {band.upto:g} (" in sentence
        assert odds in sentence and guess in sentence, (band, sentence)
    assert "very weak above ε = 5" in sentence
    assert "1-in-2 guess rises to at most 73.1%" in scale_sentence(2)


def test_the_bands_are_ascending_and_the_last_is_open():
    uptos = [band.upto for band in SCALE]
    assert uptos == sorted(uptos) and math.isinf(uptos[-1]) and len(set(uptos)) == len(uptos)


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("nan")])
def test_a_bad_epsilon_is_refused(epsilon):
    with pytest.raises(InvalidInputError):
        band_of(epsilon)
