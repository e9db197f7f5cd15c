"""Rényi DP of one Poisson-subsampled Gaussian step: Opacus's numbers, bit for bit, faster.

Opacus (``opacus.accountants.analysis.rdp``, after Mironov, Talwar, Zhang 2019, Section 3.3)
sums log A_alpha term by term in a Python loop that calls a SciPy special function per term:
about 0.2 s for :data:`labeldp_core.accounting.sampled_gaussian.RDP_ORDERS`, paid at every sigma
a noise calibration tries (about ten per calibration). This module computes the same terms with
the same floating-point operations in the same order, only calling ``scipy.special.binom`` and
``log_ndtr`` once per block of terms instead of once per term (a ufunc gives each element the
value it gives that element alone), and keeps Opacus's sequential log-space sum and its stopping
rule. So every value equals Opacus's exactly (``tests/accounting/test_sgm_rdp.py`` compares them
on a grid of rates, noise multipliers and every order), at about a third of the CPU time
(0.2 s → 0.06 s per noise multiplier on the default grid).
"""

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np
from scipy import special

__all__ = ["compute_rdp"]

#: Terms of a fractional order's series computed per block (most orders stop within 100).
_BLOCK = 128


def compute_rdp(q: float, sigma: float, orders: Sequence[float]) -> np.ndarray:
    """RDP of one step at each order: Opacus's ``compute_rdp(q, sigma, steps=1, orders)``.

    >>> float(compute_rdp(1.0, 2.0, [2.0])[0])  # no subsampling: alpha / (2 sigma^2)
    0.25
    """
    return np.array([_rdp(q, sigma, order) for order in orders])


def _rdp(q: float, sigma: float, alpha: float) -> float:
    """RDP at one order, with Opacus's special cases (no sampling, no noise, every example)."""
    if q == 0:
        return 0
    if sigma == 0:
        return np.inf
    if q == 1.0:
        return alpha / (2 * sigma**2)
    if np.isinf(alpha):
        return np.inf
    if float(alpha).is_integer():
        return _log_a_int(q, sigma, int(alpha)) / (alpha - 1)
    return _log_a_frac(q, sigma, alpha) / (alpha - 1)


def _log_add(logx: float, logy: float) -> float:
    """log(e^x + e^y), as Opacus computes it."""
    a, b = (logx, logy) if logx <= logy else (logy, logx)
    return b if a == -math.inf else math.log1p(math.exp(a - b)) + b


def _log_sub(logx: float, logy: float) -> float:
    """log(e^x - e^y) for x >= y, as Opacus computes it."""
    if logx < logy:
        raise ValueError("The result of subtraction must be non-negative.")
    if logy == -math.inf:
        return logx
    if logx == logy:
        return -math.inf
    try:
        return math.log(math.expm1(logx - logy)) + logy
    except OverflowError:
        return logx


def _log_a_int(q: float, sigma: float, alpha: int) -> float:
    """The log of A_alpha at a whole order: a finite sum of alpha + 1 terms, added in order."""
    i = np.arange(alpha + 1)
    log_coef = np.array(list(map(math.log, special.binom(alpha, i).tolist())))
    log_coef_i = log_coef + i * math.log(q) + (alpha - i) * math.log(1 - q)
    terms = log_coef_i + (i * i - i) / (2 * (sigma**2))
    log_a = -math.inf
    for term in terms.tolist():
        log_a = _log_add(log_a, term)
    return float(log_a)


def _log_a_frac(q: float, sigma: float, alpha: float) -> float:
    """The log of A_alpha at a fractional order: two series, summed until a term is below e^-30."""
    log_a0 = log_a1 = -math.inf
    for block in _frac_blocks(q, sigma, alpha):
        for coef, log_s0, log_s1 in zip(*block, strict=True):
            if coef > 0:
                log_a0, log_a1 = _log_add(log_a0, log_s0), _log_add(log_a1, log_s1)
            else:
                log_a0, log_a1 = _log_sub(log_a0, log_s0), _log_sub(log_a1, log_s1)
    return _log_add(log_a0, log_a1)


def _frac_blocks(q: float, sigma: float, alpha: float) -> Iterator[tuple[list[float], ...]]:
    """Each term's binomial coefficient and its two log terms, up to the first below e^-30.

    A block of terms at a time, each value by the operations Opacus performs on it (its
    ``_log_erfc(x)`` is ``log 2 + log_ndtr(-x sqrt 2)``): the logarithms by :func:`math.log`,
    the special functions by SciPy's ufuncs, the rest by IEEE arithmetic in the same order.
    """
    z0 = sigma**2 * math.log(1 / q - 1) + 0.5
    scale, two_var = math.sqrt(2) * sigma, 2 * (sigma**2)
    for start in itertools.count(0, _BLOCK):
        i = np.arange(start, start + _BLOCK, dtype=np.float64)
        j = alpha - i
        coef = special.binom(alpha, i)
        log_coef = np.array(list(map(math.log, np.abs(coef).tolist())))
        log_t0 = log_coef + i * math.log(q) + j * math.log(1 - q)
        log_t1 = log_coef + j * math.log(q) + i * math.log(1 - q)
        log_e0 = math.log(0.5) + (math.log(2) + special.log_ndtr(-((i - z0) / scale) * 2**0.5))
        log_e1 = math.log(0.5) + (math.log(2) + special.log_ndtr(-((z0 - j) / scale) * 2**0.5))
        log_s0 = log_t0 + (i * i - i) / two_var + log_e0
        log_s1 = log_t1 + (j * j - j) / two_var + log_e1
        small = np.flatnonzero(np.maximum(log_s0, log_s1) < -30)
        end = small[0] + 1 if small.size else _BLOCK
        yield tuple(values[:end].tolist() for values in (coef, log_s0, log_s1))
        if small.size:
            return
