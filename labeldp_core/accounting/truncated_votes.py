"""PATE's votes with Laplace noise truncated to an integer (``count + int(noise)``): what it costs.

A slip of tutorials that want integer counts. Truncation toward zero sends all of (-1, 1) to 0,
so with X ~ Laplace(b) and r = e^(-1/b) the noise Z = int(X) has

    P(Z = 0) = 1 - r,    P(Z = k) = (1 - r) r^|k| / 2  for k != 0.

What that costs depends on what is released:

- *The noisy vote counts.* The largest ratio between the pmf at neighbouring integers is
  P(0) / P(±1) = 2 e^(1/b), so each count a moved vote changes costs 1/b + ln 2, and one moved
  vote changes two counts: 2/b + 2 ln 2 (1 + 2 ln 2 at b = 2, PATE's scale 2/ε at ε = 1).
- *Only the argmax* (what PATE publishes), one query of two classes: the answer depends only on
  the gap g = n_0 - n_1 and on D = Z_1 - Z_0, whose pmf has a closed form,
  P(D = d) = (1 - r)^2 / 4 r^|d| (|d| + A) for d != 0 with A = 3 + 2 r^2 / (1 - r^2), and tail
  P(D >= m) = (1 - r) / 4 r^m (m + B) for m >= 1 with B = A + r / (1 - r). One moved vote shifts
  g by 2. For g >= 3 the unlikely answer's probability is (1 - r) / 4 r^g (alpha g + beta) with
  alpha > 0, so its log-ratio across the shift is 2/b + ln((alpha (g - 2) + beta) / (alpha g +
  beta)): below 2/b and rising toward it as the lead grows, while the likely answer's log-ratio
  falls toward 0 (and symmetrically for g <= -3). The supremum over all vote histograms is
  therefore the larger of 2/b and the largest loss over the gaps near 0, which
  :func:`argmax_loss` computes; at b = 2 it is 2/b = 1, never reached (0.97 at a lead of 60).
  The truncation costs the argmax nothing beyond the untruncated noise's 2/b.
"""

import math
from typing import Literal

import numpy as np

from labeldp_core.base.validation import check_positive

__all__ = [
    "TIE_RULES",
    "argmax_answer_probabilities",
    "argmax_loss",
    "argmax_loss_at",
    "truncated_laplace_pmf",
    "vote_counts_loss",
]

#: How a tie of the two noisy counts is answered: the lower class (NumPy's argmax) or at random.
TIE_RULES = ("lowest", "random")
TieRule = Literal["lowest", "random"]
#: Gaps beyond this many scales: the likely answer's loss there is below e^-40.
_REACH = 40.0


def truncated_laplace_pmf(values: np.ndarray, scale: float) -> np.ndarray:
    """P(int(X) = k) for X ~ Laplace(scale), per integer k of ``values``: (-1, 1) lands on 0."""
    one_minus_r = -math.expm1(-1.0 / check_positive(scale, "laplace scale"))
    magnitude = np.abs(np.asarray(values, dtype=np.float64))
    return np.where(magnitude == 0, one_minus_r, 0.5 * one_minus_r * np.exp(-magnitude / scale))


def vote_counts_loss(scale: float) -> float:
    """The loss of the noisy vote counts released: 2/b + 2 ln 2.

    One moved vote moves two counts by one; each costs the pmf's largest log-ratio between
    neighbouring integers, at 0: ln 2 + 1/b.

    >>> round(vote_counts_loss(2.0), 6) == round(1 + 2 * math.log(2), 6)
    True
    """
    # The ratio is e^(1/b) between any two neighbours away from 0, so -2..2 holds the largest.
    pmf = truncated_laplace_pmf(np.arange(-2, 3), scale)
    return 2.0 * float(np.max(np.abs(np.diff(np.log(pmf)))))


def _difference_point(gaps: np.ndarray, r: float) -> np.ndarray:
    """P(D = d) for D = Z_1 - Z_0, per integer d of ``gaps``."""
    c = 1.0 - r
    a = 3.0 + 2.0 * r**2 / (1.0 - r**2)
    at_zero = c**2 * (1.0 + 0.5 * r**2 / (1.0 - r**2))
    d = np.abs(gaps)
    return np.where(d == 0, at_zero, c**2 / 4.0 * r**d * (d + a))


def _difference_tail(starts: np.ndarray, r: float) -> np.ndarray:
    """P(D >= m) per integer m >= 1 of ``starts``."""
    c = 1.0 - r
    b = 3.0 + 2.0 * r**2 / (1.0 - r**2) + r / c
    return c / 4.0 * r**starts * (starts + b)


def argmax_answer_probabilities(
    gaps: np.ndarray, scale: float, ties: TieRule = "lowest"
) -> tuple[np.ndarray, np.ndarray]:
    """P(answer 0) and P(answer 1) of the two-class argmax, per gap g = n_0 - n_1 (integers).

    Class 1 is answered when Z_1 - Z_0 > g; a tie (D = g) goes to class 0 (``lowest``) or to
    either with probability 1/2 (``random``). Each probability is computed from a tail, never
    as 1 minus a number close to 1 where it is small.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    r = math.exp(-1.0 / check_positive(scale, "laplace scale"))
    g = np.asarray(gaps, dtype=np.float64)
    point = _difference_point(g, r)
    # P(D > g) = P(D >= g + 1); for g < 0 it is 1 - P(D <= g) = 1 - P(D >= -g) by symmetry.
    above = np.where(g >= 0, _difference_tail(np.abs(g) + 1, r), 1.0 - _difference_tail(-g, r))
    below = np.where(g <= 0, _difference_tail(1 - g, r), 1.0 - _difference_tail(np.abs(g), r))
    share = 0.5 if ties == "random" else 0.0
    return below + (1.0 - share) * point, above + share * point


def argmax_loss_at(gaps: np.ndarray, scale: float, ties: TieRule = "lowest") -> np.ndarray:
    """Per gap g: the larger |log-ratio| of the two answers between gaps g and g - 2.

    Gap g - 2 is the same query with one teacher's vote moved from class 0 to class 1.
    """
    g = np.asarray(gaps, dtype=np.float64)
    before, after = (
        argmax_answer_probabilities(g, scale, ties),
        argmax_answer_probabilities(g - 2, scale, ties),
    )
    ratios = [np.abs(np.log(p) - np.log(q)) for p, q in zip(before, after, strict=True)]
    return np.maximum(*ratios)


def argmax_loss(scale: float) -> float:
    """The supremum over two-class vote histograms and both tie rules of the argmax's loss.

    It is the larger of 2/b (the unlikely answer's limit as the lead grows) and the largest loss
    over the gaps within _REACH scales of 0, beyond which the likely answer's loss is below
    e^-40 (see the module's docstring).

    >>> argmax_loss(2.0)
    1.0
    """
    scale = float(check_positive(scale, "laplace scale"))
    reach = math.ceil(_REACH * scale) + 3
    gaps = np.arange(-reach, reach + 3)
    near = max(float(np.max(argmax_loss_at(gaps, scale, ties))) for ties in TIE_RULES)
    return max(near, 2.0 / scale)
