"""CoinPress (Biswas, Dong, Kamath & Ullman 2020): private mean estimation in a shrinking ball.

Each step clips the points to a ball around the current centre, releases the sum of the clipped
offsets with Gaussian noise, and moves the centre to the noisy mean. The next step clips to a
ball around the new centre whose radius is the centre's confidence radius plus the points'
spread, which shrinks as the centre improves, so later steps need less noise for the same
budget. (While that ball would be no smaller than the ball holding all the data, a step sums the
points themselves instead.) A budget rho is split across steps; by composition the steps
together are (sum of the step budgets)-zCDP.

Written for bounded data, as DP prototypes need it: every point is first projected into the
ball of radius ``bound`` around the origin. Privacy is stated for add/remove neighbours (one
point more or less): the clipped offsets have norm at most the step's clipping radius, so the
sum's L2 sensitivity is that radius, and noise of standard deviation radius / sqrt(2 rho_t) makes
the step rho_t-zCDP. The number of points is not released here: the caller passes a count that
is public or released privately (it only rescales the sums into a mean).
"""

import math
from dataclasses import dataclass

import numpy as np

from labeldp_core.base.validation import (
    check_list,
    check_positive,
    check_probability,
    check_real_array,
)
from labeldp_core.errors import InvalidInputError

__all__ = [
    "CoinPressGroups",
    "CoinPressTrace",
    "clip_to_ball",
    "coinpress_group_means",
    "coinpress_mean",
    "gaussian_norm_bound",
]


def gaussian_norm_bound(dimension: int, beta: float) -> float:
    """A radius that a standard Gaussian vector in ``dimension`` dimensions exceeds w.p. <= beta.

    sqrt(d + 2 sqrt(d ln(1/beta)) + 2 ln(1/beta)), from Laurent & Massart's chi-square bound.

    >>> round(gaussian_norm_bound(1, 0.05), 3)
    3.233
    """
    dimension = check_positive(dimension, "dimension", integer=True)
    beta = check_probability(beta, "beta")
    log_term = math.log(1 / beta)
    return math.sqrt(dimension + 2 * math.sqrt(dimension * log_term) + 2 * log_term)


def clip_to_ball(points: np.ndarray, center: np.ndarray, radius: float | np.ndarray) -> np.ndarray:
    """Project each row of ``points`` onto the ball of ``radius`` around ``center``.

    ``center`` may be one point or one per row, ``radius`` a number or one per row ``(n, 1)``.
    """
    offsets = points - center
    norms = np.linalg.norm(offsets, axis=-1, keepdims=True)
    factors = np.minimum(1.0, radius / np.maximum(norms, np.finfo(np.float64).tiny))
    return center + offsets * factors


@dataclass(frozen=True)
class CoinPressTrace:
    """The estimate and, per step, what was done: all of it computed from released values.

    ``clip_radii[t]`` is step t's clipping radius (= its L2 sensitivity), ``noise_sds[t]`` the
    standard deviation of the Gaussian noise added to step t's sum, ``radii[t]`` the confidence
    radius of the centre after step t.
    """

    mean: np.ndarray
    clip_radii: tuple[float, ...]
    noise_sds: tuple[float, ...]
    radii: tuple[float, ...]


@dataclass(frozen=True)
class CoinPressGroups:
    """The estimates of many groups at once, and each step's figures per group.

    ``means`` is ``(groups, d)``; ``clip_radii``, ``noise_sds`` and ``radii`` are ``(steps,
    groups)``: each step's clipping radius (its L2 sensitivity), noise standard deviation and
    confidence radius.
    """

    means: np.ndarray
    clip_radii: np.ndarray
    noise_sds: np.ndarray
    radii: np.ndarray

    def trace(self, group: int) -> CoinPressTrace:
        """The :class:`CoinPressTrace` of one group."""
        return CoinPressTrace(
            self.means[group],
            tuple(float(r) for r in self.clip_radii[:, group]),
            tuple(float(r) for r in self.noise_sds[:, group]),
            tuple(float(r) for r in self.radii[:, group]),
        )


def coinpress_mean(
    points: np.ndarray,
    step_rhos: tuple[float, ...] | list[float],
    count: float,
    rng: np.random.Generator,
    *,
    bound: float = 1.0,
    spread: float = 1.0,
    beta: float = 0.01,
) -> CoinPressTrace:
    """Estimate the mean of ``points`` with CoinPress; sum(step_rhos)-zCDP under add/remove.

    Args:
        points: ``(n, d)`` data, n >= 0 (no rows: the release is pure noise, as it must be, so
            that an empty input is not revealed); rows are first projected into the ball of
            radius ``bound``.
        step_rhos: the zCDP budget of each step (one step per entry).
        count: the number of points as known publicly or released privately; must be > 0.
        rng: the source of noise.
        bound: radius of the ball around the origin that holds the data (the a priori ball
            for the mean too).
        spread: how far from the mean the points are expected to lie (a public guess); it only
            affects accuracy: points further away are pulled in by the clipping.
        beta: failure probability used for each step's confidence radius.

    Returns:
        The final estimate and the per-step clipping radii, noise and confidence radii.
    """
    data = check_real_array(points, "points")
    groups = np.zeros(data.shape[0] if data.ndim == 2 else 0, dtype=np.int64)
    counts = np.array([check_positive(count, "count")], dtype=np.float64)
    return coinpress_group_means(
        data, groups, 1, step_rhos, counts, rng, bound=bound, spread=spread, beta=beta
    ).trace(0)


def coinpress_group_means(
    points: np.ndarray,
    groups: np.ndarray,
    num_groups: int,
    step_rhos: tuple[float, ...] | list[float],
    counts: np.ndarray,
    rng: np.random.Generator,
    *,
    bound: float = 1.0,
    spread: float = 1.0,
    beta: float = 0.01,
) -> CoinPressGroups:
    """:func:`coinpress_mean` of every group at once: each group's points are its own instance.

    Every step treats all groups in whole-array operations (clip, sum per group, one noise draw
    of shape ``(groups, d)``), so a thousand groups cost about what one does. Each group's
    release reads only its own points, so under add/remove each group is sum(step_rhos)-zCDP on
    its own.

    Args:
        points: ``(n, d)`` data of all groups.
        groups: ``(n,)`` the group of each point, in 0..num_groups-1.
        num_groups: the number of groups (a group without points gets pure noise).
        step_rhos: the zCDP budget of each step, shared by all groups.
        counts: ``(num_groups,)`` each group's public or privately released count, > 0.
        rng: the source of noise.
        bound: radius of the data ball.
        spread: how far from its mean a group's points are expected to lie (public guess).
        beta: failure probability of each step's confidence radius.

    Returns:
        Every group's estimate and per-step figures.
    """
    data = check_real_array(points, "points")
    if data.ndim != 2 or data.shape[1] == 0:
        raise InvalidInputError(f"points must be an (n, d) array with d >= 1, got {data.shape}")
    if not np.all(np.isfinite(data)):
        raise InvalidInputError("points must be finite numbers (found NaN or infinity)")
    rhos = [
        check_positive(rho, "each step's rho")
        for rho in check_list(step_rhos, "step_rhos", "[0.1, 0.4] (one zCDP budget per step)")
    ]
    bound = check_positive(bound, "bound")
    spread = check_positive(spread, "spread")
    beta = check_probability(beta, "beta")
    counts = np.asarray(counts, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.int64)

    dimension = data.shape[1]
    data = clip_to_ball(data, np.zeros(dimension), bound)
    tail = gaussian_norm_bound(dimension, beta)
    center = np.zeros((num_groups, dimension))
    radius = np.full(num_groups, float(bound))
    clip_radii, noise_sds, radii = [], [], []
    for rho in rhos:
        # While the ball around the centre is no smaller than the data ball, clipping to it
        # would cost more than it saves: sum the points themselves (sensitivity ``bound``).
        clip_radius = radius + spread
        at_origin = clip_radius >= bound
        anchor = np.where(at_origin[:, None], 0.0, center)
        clip_radius = np.where(at_origin, float(bound), clip_radius)
        sigma = clip_radius / math.sqrt(2 * rho)  # Delta / sqrt(2 rho), one per group
        offsets = clip_to_ball(data, anchor[groups], clip_radius[groups, None]) - anchor[groups]
        sums = np.stack(
            [np.bincount(groups, offsets[:, j], num_groups) for j in range(dimension)], axis=1
        )
        noisy_sum = sums + rng.standard_normal((num_groups, dimension)) * sigma[:, None]
        center = anchor + noisy_sum / counts[:, None]
        radius = sigma / counts * tail
        clip_radii.append(clip_radius)
        noise_sds.append(sigma)
        radii.append(radius)
    return CoinPressGroups(center, np.array(clip_radii), np.array(noise_sds), np.array(radii))
