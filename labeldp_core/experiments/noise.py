"""The ``noise`` setting, the noisy histogram's share of a budget, and where every draw comes from.

``float`` draws from the run's seeded generator (reproducible by seed). ``secure`` draws every
random choice of the release from os.urandom: exact integer noise on integer data, exact rational
coins for randomized response, random tie-breaks; nothing of it can be replayed from the seed.
The noise itself, its exact scale and the epsilon it spends belong to the plans of
:mod:`labeldp_core.mechanisms.noise_plans`; this module only wires them into experiments.
"""

from labeldp_core.accounting import BudgetSplit, split_budget
from labeldp_core.experiments.spec import Setting
from labeldp_core.mechanisms.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.mechanisms.noise_plans import (
    FLOAT_SOURCE,
    SECURE_SOURCE,
    LaplacePlan,
    laplace_plan,
)
from labeldp_core.mechanisms.secure_noise import NOISE_KINDS

__all__ = ["NOISE_SETTING", "TRAINING_DRAW", "draw_sources", "histogram_split"]

NOISE_SETTING = Setting(
    "float",
    "noise and coins: float (NumPy's generator, seeded: reproducible, for teaching) or secure "
    "(every random draw of the release from os.urandom, exact integer noise on integer data; "
    "not reproducible from the seed)",
    NOISE_KINDS,
)

#: Draws that stay seeded in every mode, and why the guarantee does not need them secret.
TRAINING_DRAW = (
    "model training (initialisation, batch order): seeded by the run, post-processing of the "
    "released labels, so the guarantee does not rely on it being secret"
)


def draw_sources(mode: str, released: list[str], seeded: dict[str, str]) -> dict[str, str]:
    """The source of every random draw of a run, by step, for ``details["random_draws"]``.

    Args:
        mode: the run's noise mode; the ``released`` steps draw from its source.
        released: the steps whose draws touch the private labels (noise, coins, tie-breaks).
        seeded: steps that stay seeded in every mode, each with why that is safe.
    """
    source = SECURE_SOURCE if mode == "secure" else FLOAT_SOURCE
    return {step: source for step in released} | dict(seeded)


def histogram_split(planned: BudgetSplit, noise: str) -> tuple[BudgetSplit, LaplacePlan | None]:
    """The budget split after a noisy label histogram at ``planned.prior_epsilon``.

    The histogram spends its plan's ``epsilon_spent`` (secure: the scale rounded up to a
    fraction spends a little less than planned; float: at most the plan); the release then gets
    exactly what is left of the total (sequential composition), so the two steps add up to at
    most the total.

    Returns:
        The split actually spent and the histogram's plan (None without a histogram).
    """
    if planned.prior_epsilon == 0:
        return planned, None
    plan = laplace_plan(HISTOGRAM_SENSITIVITY, planned.prior_epsilon, noise)
    return split_budget(planned.total, plan.epsilon_spent), plan
