"""Randomized response experiment: release every training label by K-ary RR, train, score."""

from labeldp_core.engine.blocks.label_release import released_labels_outcome
from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.consensus import CONSENSUS_SETTING
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.noise.noise_plans import rr_plan
from labeldp_core.noise.randomized_response import (
    expected_flip_rate,
    keep_probability,
    randomized_response_by_plan,
)

__all__ = ["SPEC", "run_rr"]


def run_rr(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label is released once: epsilon_spent is the RR coins' exact ratio, <= epsilon."""
    data = ctx.dataset
    noise = config.setting("noise")
    plan = rr_plan(config.epsilon, data.num_classes, noise)
    released = randomized_response_by_plan(data.y_train, plan, ctx.rng)
    details = {
        "keep_probability": keep_probability(config.epsilon, data.num_classes),
        "expected_flip_rate": expected_flip_rate(config.epsilon, data.num_classes),
        **plan.describe("randomized response coins"),
        "random_draws": draw_sources(
            noise, ["randomized response coins"], {"training": TRAINING_DRAW}
        ),
        "composition": "each label released once by K-ary randomized response, keep : each "
        "other label = D : m <= e^epsilon exactly: epsilon_spent = ln(D/m) <= epsilon, "
        "label-DP (replace-one)",
    }
    return released_labels_outcome(
        ctx, released, plan.epsilon_spent, details, ("details.confusion",)
    )


SPEC = MechanismSpec(
    id="rr",
    title="Randomized response",
    summary="K-ary randomized response: keep each label with probability e^eps/(e^eps+K-1)",
    privacy_unit="label",
    task="classification",
    settings={"noise": NOISE_SETTING, "consensus": CONSENSUS_SETTING},
    runner=run_rr,
)
