"""Vector randomized response experiment: release every label as a noisy one-hot vector, train.

The model learns each bit's conditional mean with a sigmoid output (Zhao et al., ICLR 2025) and
predicts the argmax. No label is released, so the run reports no label flip rate: the share of
bits flipped, and how often the released vector's true bit is kept, are in the details.
"""

import numpy as np

from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.vector_rr.fit import train_on_bits
from labeldp_core.families.vector_rr.release import (
    bit_flip_probability,
    bit_plan,
    vector_epsilon,
    vector_randomized_response_by_plan,
)

__all__ = ["SPEC", "bit_statistics", "run_vector_rr"]

#: The step that draws the bit coins, as ``details["random_draws"]`` names it.
COINS = "vector randomized response bit coins"


def bit_statistics(labels: np.ndarray, bits: np.ndarray) -> dict[str, float]:
    """Measured shares of the release against the true labels (diagnostics: they read them).

    ``bit_flip_rate``: bits that differ from the one-hot vector; ``true_bit_kept``: rows whose
    true bit is still 1; ``other_bits_set``: zero bits turned to 1; ``ones_per_vector``: the
    mean number of 1 bits in a released vector.
    """
    rows = np.arange(labels.size)
    true_bit = bits[rows, labels].astype(np.float64)
    ones = bits.sum(axis=1, dtype=np.float64)
    others = bits.shape[1] - 1
    return {
        "bit_flip_rate": float((np.sum(1 - true_bit) + np.sum(ones - true_bit)) / bits.size),
        "true_bit_kept": float(np.mean(true_bit)),
        "other_bits_set": float(np.sum(ones - true_bit) / (labels.size * others)),
        "ones_per_vector": float(np.mean(ones)),
    }


def run_vector_rr(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label's vector is released once: epsilon_spent = 2 ln(D/m) of the bit coins, <= ε."""
    data = ctx.dataset
    noise = config.setting("noise")
    plan = bit_plan(config.epsilon, noise)
    bits = vector_randomized_response_by_plan(data.y_train, plan, data.num_classes, ctx.rng)
    trained = train_on_bits(ctx, bits)
    flip = bit_flip_probability(config.epsilon)
    details = {
        "bit_flip_probability": flip,
        "bit_flip_probability_exact": float(plan.flip_weight)
        / (plan.denominator + plan.flip_weight),
        **bit_statistics(data.y_train, bits),
        **plan.describe(COINS),
        "random_draws": draw_sources(noise, [COINS], {"training": TRAINING_DRAW}),
        "composition": "each label released once as its one-hot vector with every bit flipped "
        "by binary randomized response at epsilon/2 (keep : flip = D : m <= e^(epsilon/2) "
        "exactly); replace-one changes two bits, so epsilon_spent = 2 ln(D/m) <= epsilon, "
        "label-DP (replace-one)",
        "test_curve": list(trained.test_curve),
    }
    return Outcome(
        epsilon_spent=vector_epsilon(plan),
        test_score=trained.final,
        n_train=data.n_train,
        details=details,
        diagnostics=(
            "details.bit_flip_rate",
            "details.true_bit_kept",
            "details.other_bits_set",
            "details.ones_per_vector",
        ),
    )


SPEC = MechanismSpec(
    id="vector-rr",
    title="Vector randomized response",
    summary="one-hot label with each bit flipped w.p. 1/(1+e^(eps/2)); sigmoid outputs, argmax",
    privacy_unit="label",
    task="classification",
    settings={"noise": NOISE_SETTING},
    runner=run_vector_rr,
)
