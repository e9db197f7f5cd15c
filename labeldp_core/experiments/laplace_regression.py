"""Laplace on regression labels: the class index as a value, noisy and clamped; train with MSE."""

import numpy as np

from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.mechanisms import expected_regression_mse, laplace_regression
from labeldp_core.mechanisms.laplace_labels import expected_discrete_regression_mse
from labeldp_core.mechanisms.noise_plans import laplace_plan

__all__ = ["SPEC", "run_laplace_regression"]


def run_laplace_regression(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each value in [0, K-1] gets Lap(0, (K-1)/ε) noise and is clamped: ε-label-DP.

    With ``noise=secure`` the labels are integers and the noise exact discrete Laplace from
    os.urandom; ``epsilon_spent`` is (K-1)/b for the noise plan's scale b, at most epsilon.
    """
    data = ctx.dataset
    low, high = 0.0, float(data.num_classes - 1)
    values = data.y_train.astype(np.float64)
    noise = config.setting("noise")
    plan = laplace_plan(high - low, config.epsilon, noise)
    if plan.secure:
        expected = expected_discrete_regression_mse(values, plan.scale, int(low), int(high))
    else:
        expected = expected_regression_mse(values, plan.epsilon_spent, low, high)
    released = laplace_regression(values, config.epsilon, low, high, ctx.rng, noise=noise)
    trained = ctx.train(released, message="training a regression head on noisy values")
    return Outcome(
        epsilon_spent=plan.epsilon_spent,
        test_score=trained.final,
        n_train=data.n_train,
        details={
            "low": low,
            "high": high,
            "sensitivity": high - low,
            "noise_scale": plan.scale,
            **plan.describe("each label value"),
            "random_draws": draw_sources(noise, ["label noise"], {"training": TRAINING_DRAW}),
            "label_mse": float(np.mean((released - values) ** 2)),
            "expected_label_mse": float(expected.mean()),
            "clamped_share": float(np.mean((released == low) | (released == high))),
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
    summary="label value 0..K-1 + Laplace noise of scale (K-1)/eps, clamped; regression head, MSE",
    privacy_unit="label",
    task="regression",
    settings={"noise": NOISE_SETTING},
    runner=run_laplace_regression,
)
