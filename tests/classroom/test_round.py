"""The round store: the tally is the answers given, once per seat and item, to seats it issued.

A phone's payload (:meth:`RoundStore.seat_view`) never holds a true label before the reveal;
the intervals are Clopper-Pearson's, checked against SciPy's exact binomial test.
"""

import threading
from collections import Counter
from dataclasses import astuple

import numpy as np
import pytest
from scipy import stats

from labeldp_core.classroom import (
    Answer,
    Item,
    NotRevealedError,
    NotTeacherError,
    RoundConfig,
    RoundKeys,
    RoundOverError,
    RoundsFullError,
    RoundStore,
    UnknownRoundError,
)
from labeldp_core.errors import InvalidInputError

NAMES = tuple(str(k) for k in range(10))


def _round(store: RoundStore, truth, released, mechanism: str = "rr") -> tuple[str, RoundConfig]:
    keys = _opened(store, truth, released, mechanism)
    return keys.code, store.config(keys.code)


def _reveal(store: RoundStore, code: str) -> tuple[int, ...]:
    """Reveal round ``code`` as its teacher (the token read off the store, as a test may)."""
    return store.reveal(code, store._rounds[code].teacher)


def _opened(store: RoundStore, truth, released, mechanism: str = "rr") -> RoundKeys:
    """A round of these labels: its code and the teacher's token."""
    config = RoundConfig(1.0, "digits", NAMES, len(truth), mechanism)
    items = tuple(Item(100 + n, t, r) for n, (t, r) in enumerate(zip(truth, released, strict=True)))
    return store.create(config, items, config.uniform_bound)


def test_the_tally_equals_the_answers_given():
    rng = np.random.default_rng(7)
    truth, released = rng.integers(10, size=20), rng.integers(10, size=20)
    store = RoundStore()
    code, _ = _round(store, truth.tolist(), released.tolist())
    given: list[Counter] = [Counter() for _ in range(20)]
    for _ in range(60):
        seat = store.join(code)
        for number in rng.permutation(20)[: rng.integers(21)] + 1:
            guess = int(rng.integers(10))
            assert store.answer(code, seat, int(number), guess) is Answer.COUNTED
            given[number - 1][guess] += 1
    _reveal(store, code)
    tally = store.tally(code)
    assert tally.seats == 60
    for item, counts, true in zip(tally.items, given, truth, strict=True):
        assert item.answers == sum(counts.values())
        assert item.hits == counts[true]
        top = max(counts.values(), default=0)
        vote = min((g for g, c in counts.items() if c == top), default=None)
        assert item.vote == vote and item.vote_hit == (vote == true)
    assert tally.answers == sum(sum(c.values()) for c in given)
    assert tally.hits == sum(c[t] for c, t in zip(given, truth, strict=True))


def test_answers_from_many_threads_at_once_are_all_counted_once():
    store = RoundStore()
    code, _ = _round(store, [3] * 20, [3] * 20)
    seats = [store.join(code) for _ in range(60)]

    def play(seat: str) -> None:
        for number in range(1, 21):
            for _ in range(2):  # a double tap: the second is refused
                store.answer(code, seat, number, number % 10)

    threads = [threading.Thread(target=play, args=(seat,)) for seat in seats]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _reveal(store, code)
    tally = store.tally(code)
    assert [item.answers for item in tally.items] == [60] * 20
    assert tally.hits == 60 * sum(n % 10 == 3 for n in range(1, 21))


def test_one_answer_per_seat_per_item_the_first_counts():
    store = RoundStore()
    code, _ = _round(store, [1, 2], [1, 2])
    seat = store.join(code)
    assert store.answer(code, seat, 1, 1) is Answer.COUNTED
    assert store.answer(code, seat, 1, 5) is Answer.REPEATED
    assert store.seat_view(code, seat).questions[0].your_answer == 1
    assert store.tally(code).items[0].votes == (0, 1) + (0,) * 8
    _reveal(store, code)
    assert store.tally(code).hits == 1


def test_a_forged_or_foreign_seat_is_refused_and_changes_nothing():
    store = RoundStore()
    code, _ = _round(store, [1, 2], [1, 2])
    other, _ = _round(store, [1, 2], [1, 2])
    mine, theirs = store.join(code), store.join(other)
    for forged in ("", "x" * 22, mine[:-1] + ("A" if mine[-1] != "A" else "B"), theirs):
        assert store.answer(code, forged, 1, 1) is Answer.UNKNOWN_SEAT
        assert not store.has_seat(code, forged)
        with pytest.raises(InvalidInputError):
            store.seat_view(code, forged)
    assert store.tally(code).answers == 0
    assert store.answer(code, mine, 3, 1) is Answer.BAD_ITEM
    assert store.answer(code, mine, 1, 10) is Answer.BAD_GUESS
    assert store.answer(code, mine, 1, True) is Answer.BAD_GUESS
    with pytest.raises(UnknownRoundError):
        store.answer("NOSUCH", mine, 1, 1)


def test_no_true_label_reaches_a_phone_before_the_reveal():
    # Every true label is 7, never released, never answered, and no item number or image
    # index is 7: a 7 anywhere in a phone's payload would be a true label.
    store = RoundStore()
    code, _ = _round(store, [7] * 5, [3, 3, 4, 5, 3], mechanism="rr-prior")
    seat = store.join(code)
    for number in (1, 2):
        # The outcome of an answer does not depend on whether it was right.
        assert store.answer(code, seat, number, 3 if number == 1 else 4) is Answer.COUNTED
    view = store.seat_view(code, seat)
    assert view.true_labels is None and view.score is None
    payload = [value for question in view.questions for value in astuple(question)]
    assert 7 not in payload and view.revealed is False
    assert [q.image_index for q in view.questions] == [100, 101, 102, 103, 104]  # the variant
    assert not hasattr(view, "items") and "true" not in repr(view.questions)
    assert _reveal(store, code) == (7,) * 5
    after = store.seat_view(code, seat)
    assert after.true_labels == (7,) * 5 and after.score == 0
    assert store.answer(code, seat, 3, 7) is Answer.CLOSED
    with pytest.raises(RoundOverError, match="the round is over"):
        store.join(code)  # a late phone gets no seat
    assert store.tally(code).seats == 1 and after.answered == 2


def test_the_teachers_tally_names_true_labels_only_after_the_reveal():
    store = RoundStore()
    code, _ = _round(store, [7, 7], [3, 7])
    assert [item.true_label for item in store.tally(code).items] == [None, None]
    assert all(row["true"] is row["right"] is None for row in store.tally(code).rows())
    with pytest.raises(NotRevealedError, match="counted at the reveal"):
        store.tally(code).vote_hits  # noqa: B018 (the property raises)
    _reveal(store, code)
    assert [row["true"] for row in store.tally(code).rows()] == ["7", "7"]
    # The export holds counts only: no seat token, no single answer.
    assert set(store.tally(code).rows()[0]) == {
        "item",
        "released",
        "true",
        "answers",
        "right",
        "class_vote",
    } | {f"votes {name}" for name in NAMES}


@pytest.mark.parametrize(("hits", "trials"), [(0, 20), (5, 20), (20, 20), (13, 37), (1, 1)])
def test_the_intervals_are_clopper_pearsons(hits, trials):
    store = RoundStore()
    code, _ = _round(store, [0] * trials, [0] * trials)
    seat = store.join(code)
    for number in range(1, trials + 1):
        store.answer(code, seat, number, 0 if number <= hits else 1)
    _reveal(store, code)
    tally = store.tally(code)
    exact = stats.binomtest(hits, trials).proportion_ci(0.95, "exact")
    assert tally.vote_interval() == pytest.approx((exact.low, exact.high), abs=1e-12)
    assert tally.vote_hits == hits and tally.vote_rate == hits / trials
    item = tally.items[0]
    assert item.interval() == pytest.approx(
        tuple(stats.binomtest(item.hits, 1).proportion_ci(0.95, "exact")), abs=1e-12
    )


def test_a_known_interval_and_none_before_any_answer():
    store = RoundStore()
    unanswered, _ = _round(store, [0] * 20, [0] * 20)
    _reveal(store, unanswered)
    assert store.tally(unanswered).vote_interval() == (0.0, 1.0)
    code, _ = _round(store, [0] * 20, [0] * 20)
    seats = [store.join(code) for _ in range(3)]
    for number in range(1, 21):
        right = number <= 5
        for seat in seats[:2]:  # two of three answer the truth on items 1-5: the vote is right
            store.answer(code, seat, number, 0 if right else 2)
        store.answer(code, seats[2], number, 1)
    _reveal(store, code)
    tally = store.tally(code)
    low, high = tally.vote_interval()
    assert (round(low, 4), round(high, 4)) == (0.0866, 0.4910)  # Clopper-Pearson, 5 of 20
    assert tally.rate == pytest.approx(10 / 60)


def test_a_vote_tie_goes_to_the_smallest_class_whatever_the_truth():
    store = RoundStore()
    code, _ = _round(store, [4, 2], [0, 0])
    for guess in (4, 2):
        store.answer(code, store.join(code), 1, guess)
        store.answer(code, store.join(code), 2, guess)
    assert [i.vote for i in store.tally(code).items] == [2, 2]  # before the reveal too
    _reveal(store, code)
    items = store.tally(code).items
    assert [i.vote for i in items] == [2, 2] and [i.vote_hit for i in items] == [False, True]


def test_rounds_end_expire_and_make_room():
    now = [0.0]
    store = RoundStore(clock=lambda: now[0], lifetime_s=100.0, max_rounds=2)
    first = _opened(store, [1], [1])
    store.end(first.code, first.teacher)
    assert not store.is_open(first.code)
    second, _ = _round(store, [1], [1])
    now[0] = 50.0
    third, _ = _round(store, [1], [1])
    now[0] = 60.0
    fourth, _ = _round(store, [1], [1])  # the oldest (second) makes room
    assert not store.is_open(second) and store.is_open(third) and store.is_open(fourth)
    now[0] = 155.0
    assert not store.is_open(third) and store.is_open(fourth)
    assert store.is_open(fourth.lower())  # a code typed in lower case


@pytest.mark.parametrize(
    ("field", "value"),
    [("epsilon", -1.0), ("items", 0), ("items", 51), ("items", 2.5), ("mechanism", "pate")],
)
def test_a_bad_config_names_the_problem(field, value):
    settings = {"epsilon": 1.0, "dataset": "digits", "class_names": NAMES} | {field: value}
    with pytest.raises(InvalidInputError):
        RoundConfig(**settings)


def _scripted_views(truth: list[int]) -> tuple[object, list[object]]:
    """A round's tally and every seat's view before the reveal, 10 seats answering each class.

    Every item is released as class 3; seat ``s`` answers class ``s // 10`` on every item. The
    round's code is the same for every call, so two calls differ only in the true labels.
    """
    store = RoundStore()
    store._new_code = lambda: "SAME5"  # one code, so views of two rounds compare field by field
    code, _ = _round(store, truth, [3] * len(truth))
    seats = [store.join(code) for _ in range(100)]
    for number, seat in enumerate(seats):
        for item in range(1, len(truth) + 1):
            assert store.answer(code, seat, item, number // 10) is Answer.COUNTED
    views = [store.seat_view(code, seat) for seat in seats]
    return store.tally(code), [astuple(view) for view in views]


def test_before_the_reveal_no_view_holds_what_is_right():
    # Two rounds that differ only in their true labels: everything the teacher's tally and the
    # seats' views hold before the reveal is the same, so neither can tell the truth (issue 49,
    # item 3: a count of right answers told a student who answered once per class the label).
    first_tally, first_views = _scripted_views([7, 0, 9])
    second_tally, second_views = _scripted_views([2, 5, 3])
    assert first_views == second_views
    assert first_tally == second_tally
    assert [item.answers for item in first_tally.items] == [100] * 3
    assert first_tally.items[0].votes == (10,) * 10


def test_only_the_teachers_token_reveals_or_ends_a_round():
    # Issue 49, item 4: anyone could end or reveal the teacher's round.
    store = RoundStore()
    keys = _opened(store, [1, 2], [1, 2])
    other = _opened(store, [1, 2], [1, 2])
    for token in ("", "x" * 22, other.teacher, keys.teacher[:-1]):
        with pytest.raises(NotTeacherError, match="only the teacher who opened"):
            store.reveal(keys.code, token)
        with pytest.raises(NotTeacherError, match="only the teacher who opened"):
            store.end(keys.code, token)
    assert store.is_open(keys.code) and not store.tally(keys.code).revealed
    assert store.reveal(keys.code, keys.teacher) == (1, 2)
    store.end(keys.code, keys.teacher)
    assert not store.is_open(keys.code) and store.is_open(other.code)


def test_a_round_with_seats_is_never_evicted_and_the_next_is_refused():
    # Issue 49, item 4: twenty opened rounds pushed the teacher's round (with its class) out.
    store = RoundStore(max_rounds=3)
    seated = [_opened(store, [1], [1]) for _ in range(2)]
    for keys in seated:
        store.join(keys.code)
    empty = _opened(store, [1], [1])
    newer = _opened(store, [1], [1])  # makes room by forgetting the round no phone joined
    assert not store.is_open(empty.code)
    assert all(store.is_open(keys.code) for keys in (*seated, newer))
    store.join(newer.code)
    with pytest.raises(RoundsFullError, match="3 rounds with phones in them"):
        _opened(store, [1], [1])
    assert all(store.is_open(keys.code) for keys in (*seated, newer))


def test_a_round_takes_at_most_max_seats_and_says_so():
    # Issue 49, item 4: a script joined 500 seats and owned the tally.
    store = RoundStore()
    code, _ = _round(store, [1], [1])
    for _ in range(120):
        store.join(code)
    with pytest.raises(InvalidInputError, match="the round is full: 120 seats"):
        store.join(code)
    assert store.tally(code).seats == 120
