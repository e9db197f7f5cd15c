"""The prior over label values that ALIBI and RR-on-bins use: uniform, or a noisy histogram.

A histogram of the training labels is private data, so it is released with discrete Laplace
noise and paid for from the run's budget: ``prior_share`` of epsilon goes to the histogram and
exactly what is left to the release (sequential composition). The split is reported as a table.
With secure noise the histogram's scale is rounded up to a fraction; the table shows the epsilon
that exact scale guarantees, and the release gets what is left after it.

The noisy counts are clipped at 0 and every class gets a pseudo-count equal to the noise scale b
before normalising (post-processing, free). A count is only known to within about b, and without
the pseudo-count a class whose noisy count fell below 0 would get prior exactly 0 (on digits at
epsilon 0.1 with the default share, 2.5 of the 10 classes on average), ALIBI's posterior (log
prior = -inf) would never put mass on it and RR-on-bins' bins would ignore its error. Where the
counts are large next to b (large epsilon), the pseudo-count changes the prior very little.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from labeldp_core.accounting import (
    BudgetSplit,
    sequential_composition,
    split_budget,
    split_budget_by_share,
)
from labeldp_core.engine.blocks.release_noise import histogram_split
from labeldp_core.engine.config import RunConfig, Setting
from labeldp_core.engine.context import RunContext
from labeldp_core.noise.label_histogram import noisy_label_counts_by_plan, prior_from_counts
from labeldp_core.noise.noise_plans import LaplacePlan

__all__ = [
    "PRIOR_SETTINGS",
    "PRIOR_STEP",
    "PriorEstimate",
    "budget_table",
    "estimate_prior",
    "prior_details",
    "run_prior",
    "split_from_table",
]

PRIOR_SETTINGS: dict[str, Setting] = {
    "prior": Setting(
        "uniform",
        "prior over label values: uniform (free) or a noisy histogram of the training labels "
        "(paid from the budget)",
        ("uniform", "histogram"),
    ),
    "prior_share": Setting(
        0.1,
        "share of epsilon spent on the noisy histogram (prior=histogram only)",
        minimum=0.01,
        maximum=0.9,
    ),
}

#: The budget table's step of the noisy label histogram.
PRIOR_STEP = "prior: noisy label histogram"


@dataclass(frozen=True)
class PriorEstimate:
    """The prior, how the budget was split, and the noisy counts it came from (if any).

    ``plan`` is the noise plan of the counts (None for a uniform prior) and ``pseudo_count`` is
    what was added to every clipped count before normalising (the noise scale; 0 for a uniform
    prior).
    """

    prior: np.ndarray
    split: BudgetSplit
    noisy_counts: tuple[int, ...] = ()
    plan: LaplacePlan | None = None
    pseudo_count: float = 0.0

    @property
    def histogram_noise(self) -> str:
        """The counts' noise in words (empty for a uniform prior)."""
        if self.plan is None:
            return ""
        return self.plan.describe("per count", discrete=True)["noise_distribution"]

    def details(self) -> dict[str, Any]:
        """Details entries of the prior: its noise and exact scale, if it read any label."""
        if self.plan is None:
            return {}
        entries: dict[str, Any] = {"histogram_noise": self.histogram_noise}
        if self.plan.secure:
            entries["histogram_noise_scale_exact"] = str(self.plan.exact_scale)
        return entries


def estimate_prior(
    labels: np.ndarray,
    num_values: int,
    epsilon: float,
    kind: str,
    share: float,
    rng: np.random.Generator,
    *,
    noise: str = "float",
) -> PriorEstimate:
    """A uniform prior for free, or a histogram prior bought with ``share`` of ``epsilon``.

    ``noise`` is the run's noise setting (``float`` or ``secure``) for the histogram.
    """
    if kind == "uniform":
        return PriorEstimate(np.full(num_values, 1.0 / num_values), split_budget(epsilon, 0.0))
    planned = split_budget_by_share(epsilon, share)
    # One group holding every example: a single noisy label histogram (L1 sensitivity 2).
    one_group = np.zeros(len(labels), dtype=np.int64)
    split, plan = histogram_split(planned, noise)
    counts = noisy_label_counts_by_plan(one_group, labels, 1, num_values, plan, rng)
    prior = prior_from_counts(counts, pseudo_count=plan.scale)[0]
    return PriorEstimate(prior, split, tuple(int(c) for c in counts[0]), plan, plan.scale)


def run_prior(config: RunConfig, ctx: RunContext) -> PriorEstimate:
    """The prior a run's settings ask for (``prior``, ``prior_share``, ``noise``), on its labels."""
    data = ctx.dataset
    return estimate_prior(
        data.y_train,
        data.num_classes,
        config.epsilon,
        config.setting("prior"),
        config.setting("prior_share"),
        ctx.rng,
        noise=config.setting("noise"),
    )


def prior_details(
    config: RunConfig, estimate: PriorEstimate, table: list[dict[str, Any]]
) -> dict[str, Any]:
    """The details entries every run with this prior reports: its kind, noise, counts, budget."""
    return {
        "prior_kind": config.setting("prior"),
        **estimate.details(),
        "prior": estimate.prior.tolist(),
        "noisy_counts": list(estimate.noisy_counts),
        "prior_pseudo_count": estimate.pseudo_count,
        "budget": table,
    }


def budget_table(
    estimate: PriorEstimate, release: str, release_spent: float
) -> list[dict[str, Any]]:
    """Rows (step, mechanism, epsilon) of the budget, the last one the total."""
    rows = []
    if estimate.split.prior_epsilon > 0:
        rows.append(
            {
                "step": PRIOR_STEP,
                "mechanism": f"noisy label histogram, {estimate.histogram_noise}",
                "epsilon": estimate.split.prior_epsilon,
            }
        )
    rows.append({"step": "release", "mechanism": release, "epsilon": release_spent})
    rows.append(
        {
            "step": "total (sequential composition)",
            "mechanism": "sum of the steps",
            "epsilon": sequential_composition(row["epsilon"] for row in rows),
        }
    )
    return rows


def split_from_table(total: float, table: list[dict[str, Any]]) -> BudgetSplit:
    """The split a run used, read back from its :func:`budget_table` and its total ``total``.

    The release had exactly what the histogram's epsilon left of the total (with secure noise
    that is a little more than planned), which the release row does not always show: RR-on-bins
    with a single bin spends 0 of it.
    """
    prior = next((row["epsilon"] for row in table if row["step"] == PRIOR_STEP), 0.0)
    return split_budget(total, prior)
