"""From the canaries' guesses to a lower bound on the label-level ε, with its confidence.

Under ε-label-DP no test tells which of two labels an example was trained with more often than
``e^ε / (1 + e^ε)`` (with δ: ``p <= e^ε (1 - p) + δ``), and for canaries whose planted label is
an independent fair coin between two candidates the number of correct guesses is stochastically
dominated by a binomial with that rate (Steinke, Nasr, Jagielski 2023, "Privacy auditing with
one (1) training run"). So the exact one-sided Clopper-Pearson lower end ``p_low`` of the guesses'
accuracy gives ``ε̂ = ln((p_low - δ) / (1 - p_low))``, a lower bound on the ε spent for a label,
valid with the stated confidence.
"""

import math
from dataclasses import dataclass

import numpy as np

from labeldp_core.audit import clopper_pearson

__all__ = ["CONFIDENCE", "GuessScore", "accuracy_cap", "guesses_correct", "score_guesses"]

#: The one-sided confidence of every canary audit's lower bound.
CONFIDENCE = 0.95


def guesses_correct(probabilities: np.ndarray, planted: np.ndarray, decoy: np.ndarray) -> int:
    """How many canaries the attack calls right: ``p(y'|x) > p(k|x)`` guesses ``y'``.

    Ties guess ``k`` (a fixed rule, so the count stays a valid test).
    """
    rows = np.arange(len(planted))
    return int(np.sum(probabilities[rows, planted] > probabilities[rows, decoy]))


def accuracy_cap(epsilon: float, delta: float = 0.0) -> float:
    """The best accuracy an (ε, δ)-label-DP model allows: ``(e^ε + δ) / (1 + e^ε)``, at most 1."""
    return min(1.0, (1.0 + delta * math.exp(-epsilon)) / (1.0 + math.exp(-epsilon)))


@dataclass(frozen=True)
class GuessScore:
    """``correct`` guesses out of ``trials``, the accuracy's lower end and the ε it proves."""

    correct: int
    trials: int
    accuracy: float
    accuracy_low: float
    epsilon_lower_bound: float
    confidence: float


def score_guesses(
    correct: int, trials: int, delta: float = 0.0, confidence: float = CONFIDENCE
) -> GuessScore:
    """The one-sided exact lower end of the accuracy and ``ln((p_low - δ) / (1 - p_low))``.

    The bound is 0 when the accuracy's lower end is not above ``(1 + δ) / 2`` (nothing proved).
    """
    # The two-sided interval at 2(1 - confidence) has the one-sided lower end at 1 - confidence.
    low, _ = clopper_pearson(correct, trials, 2 * (1 - confidence))
    bound = 0.0
    if low - delta > 1 - low:
        bound = math.log((low - delta) / (1 - low))
    return GuessScore(correct, trials, correct / trials, low, bound, confidence)
