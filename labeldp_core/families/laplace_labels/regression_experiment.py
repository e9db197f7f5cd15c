"""Laplace on regression labels: the class index as a value, noisy and clamped; train with MSE."""

import numpy as np

from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.laplace_labels.release import (
    expected_discrete_regression_mse,
    expected_regression_mse,
    laplace_regression_by_plan,
)
from labeldp_core.noise.noise_plans import laplace_plan

__all__ = ["SPEC", "run_laplace_regression"]


def run_laplace_regression(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each value in [low, high] gets Lap(0, (high-low)/ε) noise and is clamped: ε-label-DP.

    The noise is drawn on the values' grid positions 0..K-1 with scale (K-1)/ε and scaled by
    the grid's step (1 for 0..K-1), the same release in the label's units. With
    ``noise=secure`` the positions are integers and the noise exact discrete Laplace from
    os.urandom; ``epsilon_spent`` is (K-1)/b for the noise plan's scale b, at most epsilon.
    """
    data = ctx.dataset
    offset, step = data.value_offset, data.value_step
    top = float(data.num_classes - 1)
    positions = data.y_train.astype(np.float64)
    noise = config.setting("noise")
    plan = laplace_plan(top, config.epsilon, noise)
    if plan.secure:
        expected = expected_discrete_regression_mse(positions, plan.scale, 0, int(top))
    else:
        expected = expected_regression_mse(positions, plan.epsilon_spent, 0.0, top)
    noisy = laplace_regression_by_plan(positions, 0.0, top, plan, ctx.rng)
    released, values = offset + step * noisy, offset + step * positions
    trained = ctx.train(released, message="training a regression head on noisy values")
    what = (
        "each label value" if step == 1 else f"each label's grid position (values {step:g} apart)"
    )
    return Outcome(
        epsilon_spent=plan.epsilon_spent,
        test_score=trained.final,
        n_train=data.n_train,
        details={
            "low": offset,
            "high": offset + step * top,
            "sensitivity": step * top,
            "noise_scale": step * plan.scale,
            **plan.describe(what),
            "random_draws": draw_sources(noise, ["label noise"], {"training": TRAINING_DRAW}),
            "label_mse": float(np.mean((released - values) ** 2)),
            "expected_label_mse": float(expected.mean()) * step**2,
            "clamped_share": float(np.mean((noisy == 0.0) | (noisy == top))),
            "test_curve": list(trained.test_curve),
            "composition": "each value released once with Laplace noise of scale b, so "
            "epsilon_spent = (high-low)/b <= epsilon, clamped (post-processing): "
            "epsilon-label-DP (replace-one)",
        },
        diagnostics=("details.label_mse", "details.expected_label_mse"),
    )


SPEC = MechanismSpec(
    id="laplace-regression",
    title="Laplace on regression labels",
    summary="label value in [low, high] + Laplace noise of scale (high-low)/eps, clamped; "
    "regression head, MSE",
    privacy_unit="label",
    task="regression",
    settings={"noise": NOISE_SETTING},
    runner=run_laplace_regression,
)
