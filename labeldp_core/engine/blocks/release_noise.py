"""The ``noise`` setting, the noisy histogram's share of a budget, and where every draw comes from.

``float`` draws from the run's seeded generator (reproducible by seed). ``secure`` draws every
random choice of the release from os.urandom: exact integer noise on integer data, exact rational
coins for randomized response, random tie-breaks; nothing of it can be replayed from the seed.
The noise itself, its exact scale and the epsilon it spends belong to the plans of
:mod:`labeldp_core.noise.noise_plans`; this module only wires them into experiments.

DP-SGD, the DP prototypes and Laplace on softmax outputs have no exact sampler here: their noise
stays floating point in both modes. For them ``secure`` seeds every generator of the release from
os.urandom instead of the seed (:func:`release_generator`), so the seed printed in each result
and link no longer replays the noise; :func:`sampler_details` says which it was.
"""

import os

import numpy as np

from labeldp_core.accounting import BudgetSplit, split_budget
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import Setting
from labeldp_core.noise.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.noise.noise_plans import (
    FLOAT_SOURCE,
    SECURE_SOURCE,
    LaplacePlan,
    laplace_plan,
)
from labeldp_core.noise.secure_noise import NOISE_KINDS, check_noise

__all__ = [
    "NOISE_SETTING",
    "SAMPLER_NOISE_SETTING",
    "TRAINING_DRAW",
    "draw_sources",
    "histogram_split",
    "release_generator",
    "sampler_details",
    "sampler_source",
]

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


#: ``noise`` of the mechanisms whose samplers are floating point (see the module notes).
SAMPLER_NOISE_SETTING = Setting(
    "float",
    "where the noise's bits come from: float (a generator seeded by the run's seed: whoever knows "
    "the seed replays the noise, a teaching run) or secure (every generator of the release "
    "seeded from os.urandom: nothing to replay; the samplers stay floating point)",
    NOISE_KINDS,
)


def draw_sources(
    mode: str, released: list[str], seeded: dict[str, str], source: str | None = None
) -> dict[str, str]:
    """The source of every random draw of a run, by step, for ``details["random_draws"]``.

    Args:
        mode: the run's noise mode; the ``released`` steps draw from its source.
        released: the steps whose draws touch the private labels (noise, coins, tie-breaks).
        seeded: steps that stay seeded in every mode, each with why that is safe.
        source: the ``released`` steps' source if not the exact samplers' (see
            :func:`sampler_source`).
    """
    if source is None:
        source = SECURE_SOURCE if mode == "secure" else FLOAT_SOURCE
    return {step: source for step in released} | dict(seeded)


def sampler_source(mode: str, generator: str = "NumPy generator") -> str:
    """Where a floating-point sampler's bits come from in ``mode``, as the details say it.

    Args:
        mode: ``float`` or ``secure``.
        generator: what draws: NumPy's generator, or DP-SGD's torch generators.
    """
    if check_noise(mode) == "secure":
        return (
            "os.urandom (the operating system's cryptographic generator) seeds a fresh "
            f"{generator} for each run; floating-point samplers"
        )
    return f"{generator} seeded by the run's seed"


def sampler_details(mode: str, samplers: str, generator: str = "NumPy generator") -> dict[str, str]:
    """The ``noise_mode`` entries of a mechanism whose samplers stay floating point.

    Float runs replay from the seed every result and link prints, so they are teaching runs;
    secure runs cannot be replayed, but their noise is the same floating-point noise.

    Args:
        mode: ``float`` or ``secure``.
        samplers: the floating-point samplers that draw the noise, for the meaning.
        generator: what draws them (see :func:`sampler_source`).
    """
    if check_noise(mode) == "secure":
        meaning = (
            "every draw of the release (the steps of random_draws with this source) comes from a "
            "generator seeded from os.urandom, never from the run's seed: nothing to replay from "
            f"the seed, and two runs with one seed differ. The samplers stay floating point "
            f"({samplers}; no exact sampler here), so the noise's low-order bits can still leak "
            "(Mironov 2012); the generator is a fast one, not a cryptographic one, and its raw "
            "draws are never released"
        )
    else:
        meaning = (
            "reproducible from the seed: whoever knows the seed (printed in the result and its "
            "link) can replay every draw, and with it tell neighbouring datasets apart, so this "
            "is a teaching run, not a release; noise=secure seeds the generators from os.urandom "
            f"(the samplers, {samplers}, stay floating point)"
        )
    return {
        "noise_mode": mode,
        "noise_source": sampler_source(mode, generator),
        "noise_mode_meaning": meaning,
    }


def release_generator(mode: str, ctx: RunContext) -> np.random.Generator:
    """The generator of a release's floating-point draws: the run's own, or one from the OS.

    Float: ``ctx.rng``, the run's generator (reproducible). Secure: a generator seeded with
    256 bits from os.urandom; the run's seeded generator is not even asked for.
    """
    if check_noise(mode) == "secure":
        return np.random.default_rng(int.from_bytes(os.urandom(32), "little"))
    return ctx.rng


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
