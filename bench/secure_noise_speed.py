"""Secure noise speed: the vectorised exact discrete Laplace sampler vs NumPy and a scalar loop.

Run: ``.venv/bin/python bench/secure_noise_speed.py [--n 600000]``. 600,000 draws are the noise
of one secure Laplace release of Fashion-MNIST's 60,000 one-hot labels (K = 10). Three samplers
draw the same count, measured side by side in this run:

- the project's vectorised exact sampler (``secure_noise.discrete_laplace``, CKS 2020
  Algorithms 1-2 over arrays, bits from ``os.urandom``);
- NumPy's floating-point Laplace (``Generator.laplace``, PCG64): the fast, leaky baseline;
- the same exact algorithm written the straightforward way, one draw at a time in Python,
  with ``secrets.randbelow`` (``os.urandom``) for every uniform integer.

Both exact samplers are checked against the discrete Laplace pmf (chi-square), so the speed-up
is between two samplers of the same law. Timings are the best of ``--repeats`` runs (the scalar
loop runs once: it is the slow side).

Then OpenDP (``opendp.measurements.make_laplace`` on a vector of integers, its exact discrete
Laplace sampler, also from the OS generator) against the project's sampler on vectors of
``--opendp-n`` (60,000: one release of Fashion-MNIST's integer labels) at the same scale,
both checked against the pmf: the project would use OpenDP's sampler if it were within 3x.
"""

import argparse
import math
import secrets
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.mechanisms import discrete_laplace_pmf
from labeldp_core.noise.secure_noise import SecureSource, discrete_laplace, rational_scale

SENSITIVITY = 2  # one-hot labels
EPSILONS = (1.0, 0.3)  # scales 2 and 6667/1000: a whole and a fractional scale


# --- the scalar reference: CKS 2020 Algorithms 1 and 2, one draw at a time -------------------


def scalar_bernoulli_exp_at_most_one(numerator: int, denominator: int) -> bool:
    """Bernoulli(exp(-n/d)) for n <= d: K = first k with Bernoulli(n/(d k)) = 0; K odd."""
    k = 1
    while secrets.randbelow(denominator * k) < numerator:
        k += 1
    return k % 2 == 1


def scalar_bernoulli_exp(numerator: int, denominator: int) -> bool:
    """Bernoulli(exp(-n/d)) exactly: exp(-1) once per whole unit, then the remainder."""
    if numerator <= denominator:
        return scalar_bernoulli_exp_at_most_one(numerator, denominator)
    whole, part = divmod(numerator, denominator)
    for _ in range(whole):
        if not scalar_bernoulli_exp_at_most_one(1, 1):
            return False
    return scalar_bernoulli_exp_at_most_one(part, denominator)


def scalar_discrete_laplace(scale: Fraction) -> int:
    """One exact draw with P(y) proportional to exp(-|y| / scale) (CKS Algorithm 2)."""
    s, t = scale.denominator, scale.numerator
    while True:
        u = secrets.randbelow(t)
        if not scalar_bernoulli_exp(u, t):
            continue
        v = 0
        while scalar_bernoulli_exp_at_most_one(1, 1):
            v += 1
        magnitude = (u + t * v) // s
        negative = secrets.randbelow(2) == 1
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude


def scalar_sampler(scale: Fraction, count: int) -> np.ndarray:
    return np.array([scalar_discrete_laplace(scale) for _ in range(count)], dtype=np.int64)


# --- measuring ----------------------------------------------------------------------------------


def timed(function: Callable[[], np.ndarray], repeats: int) -> tuple[float, np.ndarray]:
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def pmf_p_value(draws: np.ndarray, scale: Fraction) -> float:
    """Chi-square p-value of integer draws against the discrete Laplace pmf (tails pooled)."""
    reach = math.ceil(6 * float(scale))
    support = np.arange(-reach, reach + 1)
    pmf = discrete_laplace_pmf(support, 1.0 / float(scale))
    inside = np.bincount(np.clip(draws, -reach - 1, reach + 1) + reach + 1, minlength=2 * reach + 3)
    expected = np.concatenate([[(1 - pmf.sum()) / 2], pmf, [(1 - pmf.sum()) / 2]]) * draws.size
    return float(stats.chisquare(inside, expected).pvalue)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=600_000, help="draws per sampler")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    parser.add_argument("--opendp-n", type=int, default=60_000, help="draws per OpenDP call")
    args = parser.parse_args()
    numpy_rng = np.random.default_rng(0)
    print(f"{args.n:,} draws per sampler; L1 sensitivity {SENSITIVITY} (one-hot labels)")
    print(
        f"{'epsilon':>8} {'scale':>10} {'secure (s)':>11} {'numpy (s)':>10} "
        f"{'scalar (s)':>11} {'secure/numpy':>13} {'scalar/secure':>14} "
        f"{'p(secure)':>10} {'p(scalar)':>10}"
    )
    for epsilon in EPSILONS:
        scale = rational_scale(SENSITIVITY, epsilon)
        secure_s, secure = timed(
            lambda s=scale: discrete_laplace(s, args.n, SecureSource()), args.repeats
        )
        numpy_s, _ = timed(lambda s=scale: numpy_rng.laplace(0.0, float(s), args.n), args.repeats)
        scalar_s, scalar = timed(lambda s=scale: scalar_sampler(s, args.n), 1)
        checks = f"{pmf_p_value(secure, scale):>10.3f} {pmf_p_value(scalar, scale):>10.3f}"
        print(
            f"{epsilon:>8g} {scale!s:>10} {secure_s:>11.3f} {numpy_s:>10.4f} "
            f"{scalar_s:>11.2f} {secure_s / numpy_s:>12.1f}x {scalar_s / secure_s:>13.1f}x "
            f"{checks}"
        )
    print(
        "secure/numpy: how much slower the exact sampler is than floating-point noise; "
        "scalar/secure: the vectorised sampler's speed-up over a per-draw Python loop of the "
        "same algorithm. p-values: chi-square against the exact pmf."
    )
    compare_opendp(args.opendp_n, args.repeats)


def compare_opendp(count: int, repeats: int) -> None:
    """OpenDP's exact discrete Laplace on an integer vector vs the project's, side by side."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    print(f"\nOpenDP {dp.__version__} make_laplace on {count:,} integers vs the project's sampler")
    print(
        f"{'epsilon':>8} {'scale':>10} {'opendp (s)':>11} {'project (s)':>12} "
        f"{'opendp/project':>15} {'p(opendp)':>10} {'p(project)':>11}"
    )
    zeros = [0] * count
    for epsilon in EPSILONS:
        scale = rational_scale(SENSITIVITY, epsilon)
        space = (dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int))
        measurement = dp.m.make_laplace(*space, scale=float(scale))
        opendp_s, theirs = timed(lambda m=measurement: np.asarray(m(zeros)), repeats)
        project_s, ours = timed(lambda s=scale: discrete_laplace(s, count, SecureSource()), repeats)
        print(
            f"{epsilon:>8g} {scale!s:>10} {opendp_s:>11.3f} {project_s:>12.3f} "
            f"{opendp_s / project_s:>14.1f}x {pmf_p_value(theirs, scale):>10.3f} "
            f"{pmf_p_value(ours, scale):>11.3f}"
        )
    print("opendp/project above 3x: the project keeps its own sampler (issue 16's rule).")


if __name__ == "__main__":
    main()
