"""A class-wide round of Guess the label: items released once, answers counted once per seat.

The teacher opens a round (:class:`RoundConfig` and the items drawn by
:func:`labeldp_core.classroom.draw.draw_items`); each phone that opens the round's link takes a
*seat*, a random token from :mod:`secrets` that names no one, and answers each item at most once.
The store keeps everything in this process's memory, behind one lock, and forgets a round when the
teacher ends it (or after :data:`ROUND_LIFETIME_S`): nothing is written anywhere.

Who sees what: a phone asks :meth:`RoundStore.seat_view`, which holds the released labels, the
images' indices in the variant and that seat's own answers, never another seat's and never a true
label before :meth:`RoundStore.reveal`. The teacher asks :meth:`RoundStore.tally`, which before the
reveal holds only the answers per class (a right/wrong count would tell a true label to a student
who answered once per class) and, once revealed, the true labels and the hits against them.
"""

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from labeldp_core.accounting.risk import guess_bound
from labeldp_core.base.validation import check_epsilon
from labeldp_core.classroom.guessing import GuessTally
from labeldp_core.errors import InvalidInputError

__all__ = [
    "CODE_ALPHABET",
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
]

#: The mechanisms a round can release its labels with: K-ary RR, and RR with a public prior
#: (the variant that shows each item's image).
MECHANISMS = {"rr": "Randomized response", "rr-prior": "RR with prior (shows the image)"}
#: Round codes: letters and digits a phone keyboard types without confusion (no 0/O, 1/I).
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
MAX_ITEMS = 50
#: Seats per round: a class of 60 twice over (reopened tabs), and a cap on what a script can add.
MAX_SEATS = 120
#: Rounds held at once; opening one more forgets the oldest no phone joined, never one with seats.
MAX_ROUNDS = 20
#: A round is forgotten this long after it was opened (a lesson is over by then).
ROUND_LIFETIME_S = 4 * 3600.0
#: The confidence of every interval of the tally (Clopper-Pearson, exact).
CONFIDENCE = 0.95


class UnknownRoundError(InvalidInputError):
    """No round with this code is open (never opened, ended, or expired)."""


class NotTeacherError(InvalidInputError):
    """The token given is not the teacher's token of this round: it cannot reveal or end it."""


class RoundOverError(InvalidInputError):
    """The round is revealed: a phone that had no seat in it gets none (its answers are closed)."""


class RoundsFullError(InvalidInputError):
    """Every round the store holds has phones in it: none is forgotten to make room."""


class NotRevealedError(InvalidInputError):
    """Right and wrong answers are counted only once the teacher has revealed the true labels."""


@dataclass(frozen=True)
class RoundConfig:
    """What the teacher chose: ε, the dataset (its name and class names), items, mechanism."""

    epsilon: float
    dataset: str
    class_names: tuple[str, ...]
    items: int = 20
    mechanism: str = "rr"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if len(self.class_names) < 2:
            raise InvalidInputError(f"a round needs at least 2 classes, got {self.class_names!r}")
        if isinstance(self.items, bool) or not isinstance(self.items, int):
            raise InvalidInputError(f"items must be a whole number, got {self.items!r}")
        if not 1 <= self.items <= MAX_ITEMS:
            raise InvalidInputError(f"items must be 1 to {MAX_ITEMS}, got {self.items}")
        if self.mechanism not in MECHANISMS:
            raise InvalidInputError(
                f"mechanism must be one of {', '.join(MECHANISMS)}, got {self.mechanism!r}"
            )

    @property
    def num_classes(self) -> int:
        """K, the number of classes (and of buttons on a phone)."""
        return len(self.class_names)

    @property
    def uniform_bound(self) -> float:
        """e^ε/(e^ε + K − 1): the most a guess from the released label alone can be right."""
        return guess_bound(self.epsilon, self.num_classes)


@dataclass(frozen=True)
class RoundKeys:
    """What opening a round hands the teacher: the code phones type, the token that runs it."""

    code: str
    #: A random token from :mod:`secrets`: only its holder reveals or ends the round.
    teacher: str = field(repr=False)


@dataclass(frozen=True)
class Item:
    """One item, server side: its example, its true label and the label released for it."""

    index: int
    true_label: int
    released_label: int


@dataclass(frozen=True)
class Question:
    """One item as a phone sees it: no true label, only what was released and its own answer."""

    number: int
    released_label: int
    #: The example's index in the training split, for its image: the variant only, else None.
    image_index: int | None
    your_answer: int | None


@dataclass(frozen=True)
class SeatView:
    """Everything one seat is shown: the round, its questions, and the truth once revealed."""

    code: str
    config: RoundConfig
    questions: tuple[Question, ...]
    revealed: bool
    #: The true labels, in item order: None until the teacher reveals them.
    true_labels: tuple[int, ...] | None

    @property
    def next_question(self) -> Question | None:
        """The first question this seat has not answered (None when all are answered)."""
        return next((q for q in self.questions if q.your_answer is None), None)

    @property
    def answered(self) -> int:
        """How many items this seat answered."""
        return sum(q.your_answer is not None for q in self.questions)

    @property
    def score(self) -> int | None:
        """How many of this seat's answers were right: None before the reveal."""
        if self.true_labels is None:
            return None
        return sum(
            q.your_answer == t for q, t in zip(self.questions, self.true_labels, strict=True)
        )


class Answer(Enum):
    """What became of one answer: counted, or refused and why."""

    COUNTED = "counted"
    REPEATED = "this seat already answered this item; the first answer counts"
    UNKNOWN_SEAT = "this seat is not in the round"
    CLOSED = "the round is revealed; answers are closed"
    BAD_ITEM = "no such item in the round"
    BAD_GUESS = "no such class"


@dataclass(frozen=True)
class ItemTally:
    """One item's answers: how many chose each class and, once revealed, the true label.

    Before the reveal it holds nothing that depends on the true label (issue 49): a count of
    right answers would tell a student who answered once per class which class is true.
    """

    number: int
    released_label: int
    #: How many answers chose each class, in class order.
    votes: tuple[int, ...]
    #: The true label: None until the reveal.
    true_label: int | None

    @property
    def answers(self) -> int:
        """How many seats answered this item."""
        return sum(self.votes)

    @property
    def vote(self) -> int | None:
        """The class's vote, its commonest answer (ties to the smallest class); None unanswered."""
        if not self.answers:
            return None
        return self.votes.index(max(self.votes))

    @property
    def hits(self) -> int:
        """How many answers were right (only once revealed)."""
        return self.votes[_revealed(self.true_label)]

    @property
    def vote_hit(self) -> bool:
        """Whether the class's vote was right (only once revealed)."""
        return self.vote == _revealed(self.true_label)

    @property
    def rate(self) -> float:
        """The share of this item's answers that were right (0 before any answer)."""
        return self.hits / self.answers if self.answers else 0.0

    def interval(self) -> tuple[float, float]:
        """Clopper-Pearson 95% interval of a student's chance to get this item right."""
        return _clopper_pearson(self.hits, self.answers)


def _revealed(true_label: int | None) -> int:
    """``true_label``, or the refusal to count right answers before the reveal."""
    if true_label is None:
        raise NotRevealedError("right and wrong answers are counted at the reveal")
    return true_label


@dataclass(frozen=True)
class Tally:
    """The round's tally: per item, and overall as every answer and as the class's vote.

    Its right and wrong counts (``hits``, ``rate``, ``vote_hits``, ...) exist once revealed;
    before, they raise :class:`NotRevealedError` and only the answers per class are there.
    """

    config: RoundConfig
    items: tuple[ItemTally, ...]
    seats: int
    revealed: bool
    #: The bound the overall rates are drawn against (for the variant, the prior's own bound).
    bound: float

    @property
    def answers(self) -> int:
        """Every answer counted, all items together."""
        return sum(item.answers for item in self.items)

    @property
    def hits(self) -> int:
        """Every right answer, all items together."""
        return sum(item.hits for item in self.items)

    @property
    def rate(self) -> float:
        """The share of all answers that were right (0 before any answer)."""
        return self.hits / self.answers if self.answers else 0.0

    @property
    def voted_items(self) -> int:
        """Items with at least one answer: the class's vote is one guess on each."""
        return sum(item.answers > 0 for item in self.items)

    @property
    def vote_hits(self) -> int:
        """Items on which the class's vote was right."""
        return sum(item.vote_hit for item in self.items)

    @property
    def vote_rate(self) -> float:
        """The share of voted items on which the class's vote was right."""
        return self.vote_hits / self.voted_items if self.voted_items else 0.0

    def vote_interval(self) -> tuple[float, float]:
        """Clopper-Pearson 95% interval of the vote's hit rate, over the items.

        The items are the independent draws: all answers to one item share its one release.
        """
        return _clopper_pearson(self.vote_hits, self.voted_items)

    def rows(self) -> list[dict[str, object]]:
        """One row per item: counts only, no seat and no single answer.

        The true label and the right answers are None before the reveal; then one column per
        class counts the answers that chose it.
        """
        names = self.config.class_names
        return [
            {
                "item": item.number,
                "released": names[item.released_label],
                "true": None if item.true_label is None else names[item.true_label],
                "answers": item.answers,
                "right": item.hits if self.revealed else None,
                "class_vote": None if item.vote is None else names[item.vote],
            }
            | {f"votes {name}": count for name, count in zip(names, item.votes, strict=True)}
            for item in self.items
        ]


def _clopper_pearson(hits: int, trials: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 95% interval of a binomial rate; (0, 1) with no trial."""
    return GuessTally(hits, trials, 1.0, 2).interval(CONFIDENCE)


@dataclass
class _Round:
    """A round's mutable state; only :class:`RoundStore` touches it, under its lock."""

    config: RoundConfig
    items: tuple[Item, ...]
    bound: float
    opened: float
    #: The teacher's token: only its holder reveals or ends the round.
    teacher: str = ""
    revealed: bool = False
    #: seat token -> {item number: answer}.
    seats: dict[str, dict[int, int]] | None = None


def _whole(value: object) -> bool:
    """Whether ``value`` is a plain whole number (not a bool, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool)


class RoundStore:
    """Open rounds in this process's memory, safe to share between threads (one lock).

    Args:
        clock: seconds, monotonic; tests pass their own to expire rounds.
        lifetime_s: how long a round lives after it is opened.
        max_rounds: rounds held at once; opening one more forgets the oldest round no phone has
            joined, and is refused when every round has phones in it.
        max_seats: seats one round takes.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        lifetime_s: float = ROUND_LIFETIME_S,
        max_rounds: int = MAX_ROUNDS,
        max_seats: int = MAX_SEATS,
    ) -> None:
        self._clock = clock
        self._lifetime_s = lifetime_s
        self._max_rounds = max_rounds
        self._max_seats = max_seats
        self._lock = threading.Lock()
        self._rounds: dict[str, _Round] = {}

    def create(self, config: RoundConfig, items: tuple[Item, ...], bound: float) -> RoundKeys:
        """Open a round of ``items`` (drawn for ``config``); return its code and teacher's token.

        ``bound`` is what the overall tally is drawn against: e^ε/(e^ε + K − 1) for RR, the
        prior's own bound for RR with prior. A full store forgets its oldest round no phone
        joined; if every round has phones in it, it refuses (:class:`RoundsFullError`).
        """
        if len(items) != config.items:
            raise InvalidInputError(f"the round has {config.items} items, got {len(items)}")
        for item in items:
            for label in (item.true_label, item.released_label):
                if not 0 <= label < config.num_classes:
                    raise InvalidInputError(f"label {label} is not one of the round's classes")
        teacher = secrets.token_urlsafe(16)
        with self._lock:
            self._forget_expired()
            self._make_room()
            code = self._new_code()
            self._rounds[code] = _Round(
                config, tuple(items), bound, self._clock(), teacher=teacher, seats={}
            )
        return RoundKeys(code, teacher)

    def _make_room(self) -> None:
        """Forget the oldest rounds no phone joined until one more fits, or refuse."""
        while len(self._rounds) >= self._max_rounds:
            empty = [code for code, game in self._rounds.items() if not game.seats]
            if not empty:
                raise RoundsFullError(
                    f"the server holds {self._max_rounds} rounds with phones in them, the most it "
                    "keeps at once; end one (or wait until one expires, "
                    f"{self._lifetime_s / 3600:g} hours after it opened) to open another"
                )
            del self._rounds[min(empty, key=lambda code: self._rounds[code].opened)]

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self._rounds:
                return code

    def _forget_expired(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rounds.items() if now - r.opened > self._lifetime_s]:
            del self._rounds[code]

    def _round(self, code: str) -> _Round:
        """The open round ``code`` (caller holds the lock)."""
        self._forget_expired()
        found = self._rounds.get(str(code).strip().upper())
        if found is None:
            raise UnknownRoundError(f"no open round has the code {code!r}")
        return found

    def is_open(self, code: str) -> bool:
        """Whether a round with this code is open."""
        with self._lock:
            self._forget_expired()
            return str(code).strip().upper() in self._rounds

    def join(self, code: str) -> str:
        """A new seat in round ``code``: a random token that names no one.

        Refused once the round is revealed (:class:`RoundOverError`) or full.
        """
        with self._lock:
            game = self._round(code)
            if game.revealed:
                raise RoundOverError("the round is over: the teacher has revealed the true labels")
            if len(game.seats) >= self._max_seats:
                raise InvalidInputError(
                    f"the round is full: {self._max_seats} seats, the most a round takes. "
                    "Ask your teacher."
                )
            token = secrets.token_urlsafe(16)
            game.seats[token] = {}
        return token

    def has_seat(self, code: str, token: str) -> bool:
        """Whether ``token`` is a seat of round ``code`` (False if the round is gone)."""
        with self._lock:
            try:
                return token in self._round(code).seats
            except UnknownRoundError:
                return False

    def answer(self, code: str, token: str, number: int, guess: int) -> Answer:
        """Count ``guess`` as seat ``token``'s answer to item ``number`` (1-based), once.

        A token this round did not hand out is refused (so is one of another round), as is a
        second answer to the same item, an answer after the reveal, or an unknown item or class.
        """
        with self._lock:
            game = self._round(code)
            answers = game.seats.get(token)
            if answers is None:
                return Answer.UNKNOWN_SEAT
            if game.revealed:
                return Answer.CLOSED
            if not _whole(number) or not 1 <= number <= len(game.items):
                return Answer.BAD_ITEM
            if not _whole(guess) or not 0 <= guess < game.config.num_classes:
                return Answer.BAD_GUESS
            if number in answers:
                return Answer.REPEATED
            answers[number] = guess
        return Answer.COUNTED

    def seat_view(self, code: str, token: str) -> SeatView:
        """What seat ``token`` may see: released labels, its answers, the truth once revealed."""
        with self._lock:
            game = self._round(code)
            answers = game.seats.get(token)
            if answers is None:
                raise InvalidInputError("this seat is not in the round")
            show_image = game.config.mechanism == "rr-prior"
            questions = tuple(
                Question(
                    number,
                    item.released_label,
                    item.index if show_image else None,
                    answers.get(number),
                )
                for number, item in enumerate(game.items, start=1)
            )
            truth = tuple(item.true_label for item in game.items) if game.revealed else None
            return SeatView(str(code).strip().upper(), game.config, questions, game.revealed, truth)

    def config(self, code: str) -> RoundConfig:
        """The configuration of round ``code``."""
        with self._lock:
            return self._round(code).config

    def tally(self, code: str) -> Tally:
        """The teacher's tally: each item's answers per class; its true label once revealed.

        Before the reveal nothing in it depends on a true label: no right or wrong count.
        """
        with self._lock:
            game = self._round(code)
            votes = [[0] * game.config.num_classes for _ in game.items]
            for answers in game.seats.values():
                for number, guess in answers.items():
                    votes[number - 1][guess] += 1
            rows = tuple(
                ItemTally(
                    number,
                    item.released_label,
                    tuple(counts),
                    item.true_label if game.revealed else None,
                )
                for number, (item, counts) in enumerate(zip(game.items, votes, strict=True), 1)
            )
            return Tally(game.config, rows, len(game.seats), game.revealed, game.bound)

    def reveal(self, code: str, teacher: str) -> tuple[int, ...]:
        """Close the answers and return the true labels, in item order (the teacher only)."""
        with self._lock:
            game = self._teachers_round(code, teacher)
            game.revealed = True
            return tuple(item.true_label for item in game.items)

    def end(self, code: str, teacher: str) -> None:
        """Forget round ``code``: its items, seats and answers (the teacher only; export first)."""
        with self._lock:
            self._teachers_round(code, teacher)
            del self._rounds[str(code).strip().upper()]

    def _teachers_round(self, code: str, teacher: str) -> _Round:
        """The open round ``code`` if ``teacher`` is its teacher's token (caller holds the lock)."""
        game = self._round(code)
        if not secrets.compare_digest(str(teacher).encode(), game.teacher.encode()):
            raise NotTeacherError("only the teacher who opened this round can reveal or end it")
        return game
