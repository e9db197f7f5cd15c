"""The audits' names on the price-of-privacy screen: by their marks, none over another or a mark."""

from itertools import combinations

import numpy as np
import pytest

from labeldp_core.plots.audit_names import PlacedName, name_room, place_names

PANEL_PX = 130
#: The browser test's screen: four mechanisms audited at 0.5, 1 and 4 (their highest bounds).
NAMES = [(0.5, 0.49, ("≥ 0.47–0.49",)), (1.0, 0.99, ("≥ 0.97–0.99",)), (4.0, 4.0, ("≥ 3.9–4",))]
MARKS = [(0.5, 0.47), (0.5, 0.49), (1.0, 0.97), (1.0, 0.99), (4.0, 3.9), (4.0, 4.0)]


def _top(size: int, highest: float = 4.0) -> float:
    """The panel's top as the figure sets it: room above the highest mark for its name."""
    return max(1.35, PANEL_PX / (PANEL_PX - name_room(size))) * highest


def _covers(name: PlacedName, epsilon: float, value: float) -> bool:
    (left, bottom), (right, top) = name.box
    return left < epsilon < right and bottom < value < top


def _apart(a: PlacedName, b: PlacedName) -> bool:
    (l1, b1), (r1, t1) = a.box
    (l2, b2), (r2, t2) = b.box
    return r1 <= l2 or r2 <= l1 or t1 <= b2 or t2 <= b1


@pytest.mark.parametrize("size", [16, 20])
def test_every_name_of_the_screen_finds_a_place_clear_of_the_others_and_of_every_mark(size):
    # In demo mode's 20 px the names at ε 0.5 and 1 covered each other (they were kept 12 px).
    placed = place_names(NAMES, MARKS, _top(size), PANEL_PX, size)
    assert [p.text for p in placed] == [texts[0] for _, _, texts in NAMES]
    assert all(_apart(a, b) for a, b in combinations(placed, 2)), placed
    for name in placed:
        assert not any(_covers(name, e, v) for e, v in MARKS), name
        (_, bottom), (_, top) = name.box
        assert name.y >= max(v for e, v in MARKS if e == name.epsilon)  # above its marks
        assert bottom >= 0 and top <= _top(size) + 1e-9  # inside the panel


@pytest.mark.parametrize("size", [16, 20])
def test_a_name_goes_where_the_claim_does_not_cross_it(size):
    # Centred above the mark at ε 0.5, the claim y = ε (rising to the right) ran through it;
    # in 20 px, placed in order of ε, the name at ε 4 had no other place left.
    placed = place_names(NAMES, MARKS, _top(size), PANEL_PX, size)
    assert len(placed) == len(NAMES)
    for name in placed:
        grid = np.geomspace(0.05, 20, 400)
        assert not any(_covers(name, e, e) for e in grid), name


def test_names_that_would_collide_stack_upwards_and_one_with_no_room_is_left_off():
    crowded = [(e, 0.5, (f"≥ 0.4–0.5 at {e:g}",)) for e in (0.9, 1.0, 1.1, 1.2, 1.3)]
    placed = place_names(crowded, [(e, v) for e, v, _ in crowded], 2.0, PANEL_PX, 20)
    assert 0 < len(placed) < len(crowded)  # 26 px rows in a 130 px panel: not all five
    assert all(_apart(a, b) for a, b in combinations(placed, 2)), placed
    assert len({round(p.y, 6) for p in placed}) == len(placed)  # each on a row of its own


def test_a_name_with_no_room_gives_way_to_its_shorter_text():
    # "Randomized response (model) ≥ 1.7" is as wide as a phone's whole plot.
    long = [(4.0, 1.7, ("Randomized response (model) ≥ 1.7", "≥ 1.7"))]
    (placed,) = place_names(long, [(4.0, 1.7)], _top(16), PANEL_PX, 16)
    assert placed.text == "≥ 1.7"
    roomy = [(1.0, 0.93, ("RR ≥ 0.93", "≥ 0.93"))]
    assert place_names(roomy, [(1.0, 0.93)], _top(16), PANEL_PX, 16)[0].text == "RR ≥ 0.93"


def test_no_audits_no_names():
    assert place_names([], [], 1.35, PANEL_PX, 16) == []
