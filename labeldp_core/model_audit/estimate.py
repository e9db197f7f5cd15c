"""From the canaries' guesses to a lower bound on the label-level ε, with its confidence.

Under ε-label-DP no test tells which of two labels an example was trained with more often than
``e^ε / (1 + e^ε)``, and for m canaries whose planted label is an independent fair coin between
two candidates the number W of correct guesses out of r is stochastically dominated by a
binomial with that rate (Steinke, Nasr, Jagielski, "Privacy auditing with one (1) training
run", NeurIPS 2023, arXiv 2305.08846). So the exact one-sided Clopper-Pearson lower end
``p_low`` of the guesses' accuracy gives ``ε̂ = ln(p_low / (1 - p_low))``, a lower bound on the
ε spent for a label, valid with the stated confidence.

With δ > 0 the theorem does not shift each guess by δ: it adds one term to the p-value that
grows with the number of canaries (the paper's Section 5, Corollary 5.4, computed as its
Appendix D's ``p_value_DP_audit``):

    P[W >= v] <= P[Bin(r, q) >= v] + 2 m δ α,   q = e^ε / (1 + e^ε),
    α = max over i in 1..v of P[v - i <= Bin(r, q) < v] / i,

and ε̂ is the largest ε whose p-value is below 1 − confidence (its ``get_eps_audit``, by
bisection). With δ = 0 the two readings are the same number.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from labeldp_core.release_audit.bounds import clopper_pearson

__all__ = [
    "CONFIDENCE",
    "GuessScore",
    "accuracy_cap",
    "one_run_p_value",
    "score_guesses",
]

#: The one-sided confidence of every canary audit's lower bound.
CONFIDENCE = 0.95
#: Bisection steps on ε for the δ > 0 bound: the bracket's width ends below 2^-40 of its start.
_BISECTIONS = 40


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


def one_run_p_value(
    canaries: int, correct: int, epsilon: float, delta: float, guesses: int | None = None
) -> float:
    """The p-value of ``correct`` right among ``guesses`` guesses on ``canaries`` canaries.

    Steinke, Nasr, Jagielski 2023, Corollary 5.4 (Appendix D's ``p_value_DP_audit(m, r, v, ε,
    δ)``): ``P[Bin(r, q) >= v] + 2 m δ α`` (see the module notes), at most 1; ``guesses`` r
    defaults to every canary (r = m).
    """
    guesses = canaries if guesses is None else guesses
    q = 1.0 / (1.0 + math.exp(-epsilon))
    tail = float(stats.binom.sf(correct - 1, guesses, q))
    if delta == 0 or correct == 0:
        return min(tail, 1.0)
    steps = np.arange(1, correct + 1)
    # P[v - i <= Bin < v] = P[Bin >= v - i] - P[Bin >= v], for i = 1..v.
    below = stats.binom.sf(correct - steps - 1, guesses, q) - tail
    alpha = float(np.max(below / steps))
    return min(tail + 2 * canaries * delta * alpha, 1.0)


def _largest_rejected(
    correct: int, trials: int, canaries: int, delta: float, level: float
) -> float:
    """The largest ε whose (ε, δ) p-value is below ``level``, by bisection (0 if none is)."""

    def p_value(epsilon: float) -> float:
        return one_run_p_value(canaries, correct, epsilon, delta, guesses=trials)

    if p_value(0.0) >= level:
        return 0.0
    low, high = 0.0, 1.0
    while p_value(high) < level:
        low, high = high, 2 * high
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if p_value(middle) < level:
            low = middle
        else:
            high = middle
    return low


def score_guesses(
    correct: int,
    trials: int,
    delta: float = 0.0,
    confidence: float = CONFIDENCE,
    canaries: int | None = None,
) -> GuessScore:
    """The one-sided exact lower end of the accuracy and the ε the guesses prove.

    ``trials`` guesses were made on ``canaries`` canaries (default: one guess each; the attack
    may abstain on the rest, :mod:`.guesses`). With δ = 0, ``ln(p_low / (1 - p_low))``, 0 when
    ``p_low`` is not above 1/2 (nothing proved). With δ > 0 the one-run theorem's own δ term,
    which grows with the canaries (:func:`one_run_p_value`): the largest ε rejected at
    1 − ``confidence``, never above the δ = 0 bound.
    """
    # The two-sided interval at 2(1 - confidence) has the one-sided lower end at 1 - confidence.
    low, _ = clopper_pearson(correct, trials, 2 * (1 - confidence))
    bound = 0.0
    if delta > 0:
        canaries = trials if canaries is None else canaries
        bound = _largest_rejected(correct, trials, canaries, delta, 1 - confidence)
    elif low > 1 - low:
        bound = math.log(low / (1 - low))
    return GuessScore(correct, trials, correct / trials, low, bound, confidence)
