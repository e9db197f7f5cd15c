"""The attack's guesses on its most confident canaries, abstaining on the rest.

Each canary's score is ``log(p(y'|x) + c) - log(p(k|x) + c)`` with ``c`` = :data:`SMOOTHING`:
positive guesses the planted ``y'``, otherwise the decoy ``k``. The one-run audit lets the
attacker abstain (Steinke, Nasr, Jagielski 2023, "Privacy auditing with one (1) training run",
NeurIPS 2023, Theorem 3.1: guesses ``T in {-1, 0, +1}^m`` with at most ``r`` nonzero, the correct
ones dominated by Binomial(r, e^ε / (1 + e^ε))), so it guesses only on the ``r`` canaries whose
score is largest in magnitude, with ``r`` fixed before the audit (``guess_share`` of the
canaries). Any function of the model's output is a valid score; this one is chosen for power.

A canary whose released label was neither candidate (RR's third labels, a Laplace argmax
elsewhere, a prior's top k* without them) leaves both candidates' probabilities tiny, and the
ratio of two tiny probabilities is noise that can be large: the plain log-ratio ranked such
canaries among the most confident. The floor ``c`` shrinks their score to about 0, so abstaining
drops them, while a candidate the model gives real mass keeps a large score (1 against 1e-6
scores about ln 100, not ln 10^6: the ranking among informative canaries barely moves).
"""

import math
from dataclasses import dataclass

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = [
    "DEFAULT_GUESS_SHARE",
    "Guesses",
    "canary_scores",
    "check_guess_share",
    "guess",
    "guess_count",
]

#: The share of canaries guessed on by default: half abstains.
DEFAULT_GUESS_SHARE = 0.5
#: The smallest share accepted: fewer guesses cannot prove much.
MIN_GUESS_SHARE = 0.1
#: What the score adds to both candidates' probabilities before their log-ratio: a tenth of the
#: uniform 1/K on ten classes, so that two probabilities far below it score about 0.
SMOOTHING = 0.01


@dataclass(frozen=True)
class Guesses:
    """How many of the ``made`` guesses were right, out of ``canaries`` canaries."""

    correct: int
    made: int
    canaries: int


def check_guess_share(share: object) -> float:
    """``share`` as a float in [:data:`MIN_GUESS_SHARE`, 1], or a clear error."""
    if isinstance(share, bool) or not isinstance(share, int | float) or math.isnan(share):
        raise InvalidInputError(f"guess_share must be a number in 0.1..1, got {share!r}")
    if not MIN_GUESS_SHARE <= share <= 1:
        raise InvalidInputError(
            f"guess_share must lie in {MIN_GUESS_SHARE:g}..1 (the share of canaries the attack "
            f"guesses on; the rest it abstains on), got {share:g}"
        )
    return float(share)


def guess_count(share: float, canaries: int) -> int:
    """How many of ``canaries`` canaries the attack guesses on: ``ceil(share * m)``.

    The tolerance keeps a share like 2/3 of 3 canaries (2.0000000000000004) at 2 guesses.

    >>> guess_count(2 / 3, 3), guess_count(0.5, 1001)
    (2, 501)
    """
    return math.ceil(check_guess_share(share) * canaries - 1e-9)


def canary_scores(probabilities: np.ndarray, planted: np.ndarray, decoy: np.ndarray) -> np.ndarray:
    """``log(p(y'|x) + c) - log(p(k|x) + c)`` per canary, ``c`` = :data:`SMOOTHING`.

    Scores below 0 (a classifier's cosine similarities) count as 0, as a probability would.

    >>> p = np.array([[0.9, 1e-6, 1e-9], [1e-6, 1e-9, 0.9]])
    >>> np.round(canary_scores(p, np.array([0, 0]), np.array([1, 1])), 2)
    array([4.51, 0.  ])
    """
    rows = np.arange(len(planted))
    chosen = np.maximum(probabilities[rows, planted].astype(np.float64), 0.0)
    other = np.maximum(probabilities[rows, decoy].astype(np.float64), 0.0)
    return np.log(chosen + SMOOTHING) - np.log(other + SMOOTHING)


def guess(
    probabilities: np.ndarray, planted: np.ndarray, decoy: np.ndarray, share: float
) -> Guesses:
    """Guess on the ``ceil(share * m)`` most confident of the ``m`` canaries; count the right ones.

    A positive score guesses ``y'`` (right), any other guesses ``k`` (wrong: ties go to the
    decoy, a fixed rule). Confidence is the score's magnitude; equal magnitudes keep the
    canaries' order, so the choice is a function of the model's output alone.

    >>> p = np.array([[0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.1, 0.2, 0.7]])
    >>> guess(p, planted=np.array([0, 0, 2]), decoy=np.array([1, 1, 1]), share=2 / 3)
    Guesses(correct=2, made=2, canaries=3)
    """
    scores = canary_scores(probabilities, planted, decoy)
    made = guess_count(share, len(scores))
    confident = np.argsort(-np.abs(scores), kind="stable")[:made]
    return Guesses(int(np.sum(scores[confident] > 0)), made, len(scores))
