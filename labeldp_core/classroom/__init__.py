"""Guess the label as a whole class: a round's items, its seats and its live tally.

:mod:`~labeldp_core.classroom.round` holds the rounds (thread-safe, in memory, nothing written);
:mod:`~labeldp_core.classroom.draw` draws a round's items and releases their labels once with the
exact sampler; :mod:`~labeldp_core.classroom.guessing` draws one randomized-response round at a
time and sets the class's hit rate beside the bound on a guess. The app's side is
``ui/class_round.py`` (the teacher), ``ui/guess_game.py`` and ``pages/play.py`` (a phone).
"""

from labeldp_core.classroom.draw import draw_items, epsilon_spent, public_prior
from labeldp_core.classroom.round import (
    MECHANISMS,
    Answer,
    Item,
    ItemTally,
    NotRevealedError,
    NotTeacherError,
    Question,
    RoundConfig,
    RoundKeys,
    RoundOverError,
    RoundsFullError,
    RoundStore,
    SeatView,
    Tally,
    UnknownRoundError,
)

__all__ = [
    "MECHANISMS",
    "Answer",
    "Item",
    "ItemTally",
    "NotRevealedError",
    "NotTeacherError",
    "Question",
    "RoundConfig",
    "RoundKeys",
    "RoundOverError",
    "RoundStore",
    "RoundsFullError",
    "SeatView",
    "Tally",
    "UnknownRoundError",
    "draw_items",
    "epsilon_spent",
    "public_prior",
]
