"""Empirical privacy audit: neighbouring inputs, an event picked on one sample, a bound on another.

Every mechanism is reduced to a scalar *score* of its output (for a label, whether it equals the
first neighbour's label; for a noisy vector, the noisy coordinate difference); events are
thresholds on the score, in either direction and for either neighbour first, as in DP-Sniper
(Bichsel et al. 2021). Choosing the event on a separate sample keeps the Clopper-Pearson bound
valid.
"""

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np

from labeldp_core.base.validation import check_positive, check_probability
from labeldp_core.errors import InvalidInputError
from labeldp_core.release_audit.bounds import epsilon_lower_bound

__all__ = ["GAUSSIAN_TAIL", "MAX_TRIALS", "AuditCase", "AuditResult", "check_trials", "run_audit"]

#: Draws ``trials`` scores of the mechanism's output on neighbour 0 or 1.
Sampler = Callable[[int, int, np.random.Generator], np.ndarray]

_THRESHOLDS = 256
#: Every draw is held in memory (tens of bytes each), so more than this would exhaust it.
MAX_TRIALS = 20_000_000
#: Gaussian cases claim the point of their exact curve whose tightest event has this probability
#: without the example (:func:`~labeldp_core.accounting.gaussian_curve.gaussian_point`): frequent
#: enough that 200,000 draws tell a 10% smaller noise apart at epsilon 1.
GAUSSIAN_TAIL = 0.1


@dataclass(frozen=True)
class AuditCase:
    """A mechanism (or a deliberately broken control) with its claim and its neighbours."""

    name: str
    claimed_epsilon: float
    claimed_delta: float
    neighbours: str
    sample: Sampler
    is_control: bool = False


@dataclass(frozen=True)
class AuditResult:
    """What one audit found; ``violates`` means the lower bound exceeds the claim."""

    name: str
    claimed_epsilon: float
    claimed_delta: float
    epsilon_lower_bound: float
    confidence: float
    trials: int
    neighbours: str
    event: str
    p0: float
    p1: float
    is_control: bool

    @property
    def violates(self) -> bool:
        """True when the audit proves, at its confidence, more leakage than claimed."""
        return self.epsilon_lower_bound > self.claimed_epsilon

    @property
    def detectable_overspend(self) -> float | None:
        """The smallest overspend this audit would catch: claim / bound - 1 (None if bound 0).

        The cases score outputs by their log-likelihood ratio, so a mechanism spending f times
        its claim raises the bound about f times: it is caught once f * bound > claim. For a
        real mechanism, 0.05 means "a 5% overspend would have been caught at these draws"; for
        a caught control the figure is negative.
        """
        if self.epsilon_lower_bound <= 0:
            return None
        return self.claimed_epsilon / self.epsilon_lower_bound - 1

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, including ``violates`` and ``detectable_overspend``."""
        return asdict(self) | {
            "violates": self.violates,
            "detectable_overspend": self.detectable_overspend,
        }

    @classmethod
    def from_dict(cls, stored: Mapping[str, object]) -> "AuditResult":
        """Rebuild a result from :meth:`to_dict` (the properties are recomputed, not read)."""
        return cls(**{field.name: stored[field.name] for field in fields(cls)})


@dataclass(frozen=True)
class _Event:
    threshold: float
    above: bool
    first: int

    def hits(self, scores: np.ndarray) -> int:
        inside = scores >= self.threshold if self.above else scores < self.threshold
        return int(np.count_nonzero(inside))

    def describe(self) -> str:
        side = ">=" if self.above else "<"
        return f"score {side} {self.threshold:.6g}, neighbour {self.first} as D0"


def _choose_event(scores: tuple[np.ndarray, np.ndarray], delta: float, alpha: float) -> _Event:
    pooled = np.concatenate(scores)
    candidates = np.unique(np.quantile(pooled, np.linspace(0, 1, _THRESHOLDS)))
    candidates = np.unique(np.concatenate([candidates, np.unique(pooled)[:_THRESHOLDS]]))
    best, best_bound = _Event(float(candidates[0]), True, 0), -1.0
    n0, n1 = scores[0].size, scores[1].size
    for first in (0, 1):
        d0, d1 = np.sort(scores[first]), np.sort(scores[1 - first])
        # Counts of scores >= t for every candidate t, by binary search.
        above0 = d0.size - np.searchsorted(d0, candidates, side="left")
        above1 = d1.size - np.searchsorted(d1, candidates, side="left")
        for above, h0, h1 in ((True, above0, above1), (False, n0 - above0, n1 - above1)):
            # A cheap point estimate ranks events; the exact bound is computed for the best few.
            ratio = (h0 / n0 - delta) / np.maximum(h1 / n1, 1 / n1)
            for index in np.argsort(ratio)[-8:]:
                bound = epsilon_lower_bound(int(h0[index]), n0, int(h1[index]), n1, delta, alpha)
                if bound > best_bound:
                    best, best_bound = _Event(float(candidates[index]), above, first), bound
    return best


def check_trials(trials: int) -> int:
    """Draws per neighbour: a whole number in 1..MAX_TRIALS."""
    check_positive(trials, "trials", integer=True)
    if trials > MAX_TRIALS:
        raise InvalidInputError(
            f"trials must be at most {MAX_TRIALS:,} (every draw is kept in memory), got "
            f"{trials:,}; use fewer, e.g. 500,000 (the command line's default)"
        )
    return trials


def run_audit(
    case: AuditCase, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit ``case`` with ``trials`` draws per neighbour for selection and as many for the bound.

    Returns a lower bound on epsilon that holds with confidence ``1 - alpha``.
    """
    check_trials(trials)
    check_probability(alpha, "alpha")
    selection = (case.sample(0, trials, rng), case.sample(1, trials, rng))
    event = _choose_event(selection, case.claimed_delta, alpha)
    fresh = (case.sample(0, trials, rng), case.sample(1, trials, rng))
    d0, d1 = fresh[event.first], fresh[1 - event.first]
    hits0, hits1 = event.hits(d0), event.hits(d1)
    bound = epsilon_lower_bound(hits0, trials, hits1, trials, case.claimed_delta, alpha)
    return AuditResult(
        name=case.name,
        claimed_epsilon=case.claimed_epsilon,
        claimed_delta=case.claimed_delta,
        epsilon_lower_bound=bound,
        confidence=1 - alpha,
        trials=int(trials),
        neighbours=case.neighbours,
        event=event.describe(),
        p0=hits0 / trials,
        p1=hits1 / trials,
        is_control=case.is_control,
    )
