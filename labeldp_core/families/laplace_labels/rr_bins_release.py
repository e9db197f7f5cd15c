"""RR-on-bins (Ghazi et al. 2022, arXiv 2212.06074): randomized response over chosen output values.

Privacy unit: one training label, replace-one neighbours. Every label value y is mapped to one of m
bins; the bin index is released by m-ary randomized response (kept with probability
e^ε/(e^ε + m - 1), else one of the other m - 1 bins uniformly), and the released label is that bin's
output value. The index step is exactly ε-DP for m >= 2 (and releases nothing for m = 1); mapping
an index to a value is post-processing.

For squared loss and a prior p over sorted values y_1 < ... < y_k the paper shows that an optimal
map is monotone, so the bins are runs of consecutive values. With λ = e^-ε the expected error of m
bins S_1..S_m with outputs v_1..v_m is

    E = Σ_j [(1 - λ) Σ_{y in S_j} p(y) (v_j - y)^2 + λ Σ_y p(y) (v_j - y)^2] / (1 + (m - 1) λ),

a sum of one term per bin for fixed m. Each term is minimised by a weighted mean v_j, and a dynamic
programme over prefixes of the sorted values finds the best partition into m runs for every m;
the answer is the m with the smallest E. m = 1 (release the prior's mean) is always a candidate,
so the result is never worse than the best constant.
"""

import itertools
from dataclasses import dataclass

import numpy as np

from labeldp_core.base.validation import check_epsilon, check_positive, check_real_array
from labeldp_core.errors import InvalidInputError
from labeldp_core.noise.noise_plans import RandomizedResponsePlan, check_plan, rr_plan
from labeldp_core.noise.secure_noise import Source

__all__ = [
    "RRBins",
    "best_constant_mse",
    "bins_spent",
    "expected_squared_error",
    "optimal_bins",
    "rr_bins_epsilon",
    "rr_on_bins",
    "rr_on_bins_by_plan",
    "transition_probabilities",
]


@dataclass(frozen=True)
class RRBins:
    """A monotone map from label values to bins, each bin's output value, and the budget.

    Attributes:
        values: the sorted label values y_1 < ... < y_k the map is defined on.
        bin_of_value: ``(k,)`` index of the bin of each value, non-decreasing, 0..m-1.
        outputs: ``(m,)`` the value released for each bin.
        epsilon: the budget of the randomized response over bin indices.
    """

    values: np.ndarray
    bin_of_value: np.ndarray
    outputs: np.ndarray
    epsilon: float

    @property
    def num_bins(self) -> int:
        """m, the number of bins (output values)."""
        return int(self.outputs.shape[0])


# --- closed-form facts -------------------------------------------------------------------------


def rr_bins_epsilon(num_bins: int, epsilon: float) -> float:
    """Privacy loss of RR over ``num_bins`` indices at ``epsilon``: its coins' ε, or 0 for one bin.

    The coins are :func:`~labeldp_core.noise.noise_plans.rr_plan`'s, whose exact ratio
    D/m spends ``epsilon_spent`` <= ``epsilon``.
    """
    epsilon = check_epsilon(epsilon)
    return bins_spent(rr_plan(epsilon, int(check_positive(num_bins, "num_bins", integer=True))))


def transition_probabilities(bins: RRBins) -> np.ndarray:
    """The ``(k, m)`` matrix P[value, bin] of releasing each bin's output for each value."""
    m = bins.num_bins
    if m == 1:
        return np.ones((bins.values.shape[0], 1))
    other = 1.0 / (np.exp(bins.epsilon) + m - 1)
    matrix = np.full((bins.values.shape[0], m), other)
    matrix[np.arange(bins.values.shape[0]), bins.bin_of_value] = 1.0 - (m - 1) * other
    return matrix


def expected_squared_error(bins: RRBins, prior: np.ndarray) -> float:
    """E[(released - y)^2] with y drawn from ``prior`` over ``bins.values``, in closed form."""
    prior = _check_prior(prior, _check_bins(bins).values.shape[0])
    squared = (bins.outputs[None, :] - bins.values[:, None]) ** 2
    return float(prior @ (transition_probabilities(bins) * squared).sum(axis=1))


def best_constant_mse(values: np.ndarray, prior: np.ndarray) -> float:
    """Squared error of always releasing the prior's best single value (its mean): its variance."""
    values, prior = _check_support(values), _check_prior(prior, np.asarray(values).shape[0])
    mean = prior @ values
    return float(prior @ (values - mean) ** 2)


def optimal_bins(values: np.ndarray, prior: np.ndarray, epsilon: float) -> RRBins:
    """The RR-on-bins map with the smallest expected squared error under ``prior`` at ``epsilon``.

    Args:
        values: the possible label values, strictly increasing (for example 0..K-1).
        prior: probabilities of the values (non-negative, summing to one).
        epsilon: the budget of the randomized response step.

    Returns:
        The optimal :class:`RRBins`; ties go to the fewest bins.
    """
    values = _check_support(values)
    prior = _check_prior(prior, values.shape[0])
    epsilon = check_epsilon(epsilon)
    lam = np.exp(-epsilon)
    cost, centre = _interval_costs(values, prior, lam)
    k = values.shape[0]
    # best[a] = smallest cost of splitting the first a values into the current number of runs.
    best = cost[0].copy()
    cuts: list[np.ndarray] = []
    totals = [best[k]]
    for runs in range(2, k + 1):
        candidates = best[:, None] + cost  # [a, b]: first a values in runs-1 runs, then a..b-1
        choice = candidates.argmin(axis=0)
        best = candidates[choice, np.arange(k + 1)]
        cuts.append(choice)
        totals.append(best[k] / (1.0 + (runs - 1) * lam))
    m = int(np.argmin(totals)) + 1
    bounds = [k]
    for runs in range(m, 1, -1):
        bounds.append(int(cuts[runs - 2][bounds[-1]]))
    bounds.append(0)
    bounds.reverse()
    bin_of_value = np.repeat(np.arange(m), np.diff(bounds))
    outputs = np.array([centre[a, b] for a, b in itertools.pairwise(bounds)])
    return RRBins(values, bin_of_value, outputs, epsilon)


def _interval_costs(
    values: np.ndarray, prior: np.ndarray, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cost and best output of every run values[a:b], as ``(k+1, k+1)`` arrays (inf if empty).

    A run S with mass P, mean μ_S and within-run squared deviation W, in a prior of mean μ and
    variance V, costs (1-λ) W + λ V + (1-λ) P λ / ((1-λ) P + λ) (μ_S - μ)^2 at its best output,
    the weighted mean ((1-λ) P μ_S + λ μ) / ((1-λ) P + λ). Written this way, without the large
    e^ε, nothing overflows; values are centred on μ to keep the prefix sums small.
    """
    mean = prior @ values
    centred = values - mean
    variance = prior @ centred**2
    zero = np.zeros(1)
    mass = np.concatenate([zero, np.cumsum(prior)])
    first = np.concatenate([zero, np.cumsum(prior * centred)])
    second = np.concatenate([zero, np.cumsum(prior * centred**2)])
    run_mass = mass[None, :] - mass[:, None]
    run_first = first[None, :] - first[:, None]
    run_second = second[None, :] - second[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        run_offset = np.where(run_mass > 0, run_first / run_mass, 0.0)  # μ_S - μ
    within = np.maximum(run_second - run_mass * run_offset**2, 0.0)
    weight = (1.0 - lam) * run_mass
    cost = (1.0 - lam) * within + lam * variance + weight * lam / (weight + lam) * run_offset**2
    centre = mean + weight * run_offset / (weight + lam)
    a, b = np.indices(cost.shape)
    cost[b <= a] = np.inf
    return cost, centre


# --- release function -------------------------------------------------------------------------


def rr_on_bins(
    values: np.ndarray,
    bins: RRBins,
    rng: np.random.Generator,
    *,
    noise: str = "float",
    source: Source | None = None,
) -> np.ndarray:
    """Release every value through RR-on-bins at ``bins.epsilon``, vectorised.

    Args:
        values: 1-D label values, each one of ``bins.values``.
        bins: the map, usually from :func:`optimal_bins`.
        rng: the source of randomness in ``float`` mode.
        noise: ``float`` (coins from ``rng``) or ``secure`` (every coin from os.urandom).
        source: where secure coins draw their bits; os.urandom if None (SeededSource: tests).

    Returns:
        A float64 array of released output values, same shape as ``values``.
    """
    bins = _check_bins(bins)
    return rr_on_bins_by_plan(
        values, bins, rr_plan(bins.epsilon, bins.num_bins, noise), rng, source
    )


def rr_on_bins_by_plan(
    values: np.ndarray,
    bins: RRBins,
    plan: RandomizedResponsePlan,
    rng: np.random.Generator,
    source: Source | None = None,
) -> np.ndarray:
    """Release every value through RR-on-bins with the coins of ``plan``, vectorised.

    The plan (``rr_plan(bins.epsilon, bins.num_bins, noise)``) draws the coins and states what
    they spend, :func:`bins_spent`, so a run reports the epsilon of the very coins it used.
    """
    bins = _check_bins(bins)
    plan = check_plan(plan, RandomizedResponsePlan, "rr_plan")
    if plan.max_set_size != bins.num_bins:
        raise InvalidInputError(
            f"the coins were planned for {plan.max_set_size} bins but the map has "
            f"{bins.num_bins}: build them with rr_plan(bins.epsilon, bins.num_bins)"
        )
    array = check_real_array(values, "values")
    if array.ndim != 1 or array.size == 0:
        raise InvalidInputError(f"values must be a non-empty 1-D array, got shape {array.shape}")
    position = np.searchsorted(bins.values, array)
    position = np.minimum(position, bins.values.shape[0] - 1)
    if not np.array_equal(bins.values[position], array):
        raise InvalidInputError(
            "every value must be one of the values the bins were built for "
            f"({bins.values.min():g}..{bins.values.max():g}); round or map them first"
        )
    index = bins.bin_of_value[position]
    m = bins.num_bins
    if m > 1:
        keep = plan.keep(np.full(array.shape[0], m), rng, source)
        other = plan.below(np.full(array.shape[0], m - 1), rng, source)
        other += other >= index
        index = np.where(keep, index, other)
    return bins.outputs[index]


def bins_spent(plan: RandomizedResponsePlan) -> float:
    """What RR-on-bins spends with ``plan``'s coins: their ε, or 0 for one bin (no coin drawn)."""
    return plan.epsilon_spent if plan.max_set_size > 1 else 0.0


# --- input checks -----------------------------------------------------------------------------


def _check_bins(bins: object) -> RRBins:
    if not isinstance(bins, RRBins):
        raise InvalidInputError(
            f"bins must be an RRBins (build one with optimal_bins), got {type(bins).__name__}"
        )
    return bins


def _check_support(values: object) -> np.ndarray:
    array = check_real_array(values, "the label values")
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)):
        raise InvalidInputError("the label values must be a non-empty 1-D array of finite numbers")
    if np.any(np.diff(array) <= 0):
        raise InvalidInputError("the label values must be strictly increasing, e.g. 0..K-1")
    return array


def _check_prior(prior: object, size: int) -> np.ndarray:
    array = check_real_array(prior, "the prior")
    if array.shape != (size,):
        raise InvalidInputError(
            f"the prior must have one probability per value ({size}), got {array.shape}"
        )
    if not np.all(np.isfinite(array)) or np.any(array < 0) or not np.isclose(array.sum(), 1.0):
        raise InvalidInputError("the prior must be non-negative and sum to one")
    return array / array.sum()
