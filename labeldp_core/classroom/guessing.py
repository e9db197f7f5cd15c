"""Guess the label: a class plays the adversary of randomized response and scores itself.

Each round takes one training example, releases its label by K-ary randomized response at the
round's epsilon, and shows only the released label. Whoever guesses the true label from it can
be right with probability at most e^ε / (e^ε + K - 1) (a uniform prior: the image stays hidden
until the guess), and guessing the released label itself attains that bound. The tally sets the
class's hit rate, with its Clopper-Pearson interval, beside the bound.
"""

import secrets
from dataclasses import dataclass

import numpy as np
from scipy import stats

from labeldp_core.base.validation import check_epsilon
from labeldp_core.noise.randomized_response import keep_probability, randomized_response

__all__ = ["GuessRound", "GuessTally", "draw_round", "output_distributions"]


@dataclass(frozen=True)
class GuessRound:
    """One round: which example, its true label, and the label RR released for it at epsilon."""

    index: int
    true_label: int
    released_label: int
    epsilon: float


def draw_round(
    labels: np.ndarray,
    num_classes: int,
    epsilon: float,
    rng: np.random.Generator | None = None,
) -> GuessRound:
    """A random example of ``labels`` and its label released by RR at ``epsilon``.

    Args:
        labels: the training labels the example is drawn from.
        num_classes: K.
        epsilon: the round's ε.
        rng: where the example and the release's coin come from. None (the app): a generator
            seeded from :mod:`secrets`, so nothing on screen (the round's number, say) tells
            which example was drawn or its true label; tests pass a seeded one.
    """
    epsilon = check_epsilon(epsilon)
    if rng is None:
        rng = np.random.default_rng(secrets.randbits(128))
    index = int(rng.integers(labels.size))
    true = int(labels[index])
    released = int(randomized_response(np.array([true]), epsilon, num_classes, rng)[0])
    return GuessRound(index, true, released, epsilon)


@dataclass(frozen=True)
class GuessTally:
    """Hits over rounds, all played at one epsilon with K classes."""

    hits: int
    rounds: int
    epsilon: float
    num_classes: int

    @property
    def bound(self) -> float:
        """The most any guesser can be right in expectation: e^ε / (e^ε + K - 1)."""
        return keep_probability(self.epsilon, self.num_classes)

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Clopper-Pearson interval of the class's true hit rate (0..1 before any round)."""
        if self.rounds == 0:
            return 0.0, 1.0
        result = stats.binomtest(self.hits, self.rounds).proportion_ci(confidence, "exact")
        return float(result.low), float(result.high)

    def add(self, hit: bool) -> "GuessTally":
        """The tally after one more round."""
        return GuessTally(self.hits + int(hit), self.rounds + 1, self.epsilon, self.num_classes)


def output_distributions(epsilon: float, num_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """P(released = j) for true label 0 and for true label 1 (two neighbours) under RR.

    Their ratio is e^ε at j = 0 and j = 1 and 1 elsewhere: the most any output can tell apart.

    >>> a, b = output_distributions(np.log(3), 3)
    >>> a.round(3).tolist(), round(float(a[0] / b[0]), 6)
    ([0.6, 0.2, 0.2], 3.0)
    """
    keep = keep_probability(check_epsilon(epsilon), num_classes)
    flip = (1 - keep) / (num_classes - 1)
    first = np.full(num_classes, flip)
    first[0] = keep
    second = np.full(num_classes, flip)
    second[1] = keep
    return first, second
