"""Laplace on regression labels: the class index as a value, noisy and clamped; train with MSE."""

import numpy as np

from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.mechanisms import (
    expected_regression_mse,
    laplace_epsilon,
    laplace_regression,
    laplace_scale,
)

__all__ = ["SPEC", "run_laplace_regression"]


def run_laplace_regression(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each value in [0, K-1] gets Lap(0, (K-1)/ε) noise and is clamped: ε-label-DP."""
    data = ctx.dataset
    low, high = 0.0, float(data.num_classes - 1)
    values = data.y_train.astype(np.float64)
    scale = laplace_scale(high - low, config.epsilon)
    released = laplace_regression(values, config.epsilon, low, high, ctx.rng)
    trained = ctx.train(released, message="training a regression head on noisy values")
    return Outcome(
        epsilon_spent=laplace_epsilon(high - low, scale),
        test_score=trained.final,
        n_train=data.n_train,
        details={
            "low": low,
            "high": high,
            "sensitivity": high - low,
            "noise_scale": scale,
            "label_mse": float(np.mean((released - values) ** 2)),
            "expected_label_mse": float(
                expected_regression_mse(values, config.epsilon, low, high).mean()
            ),
            "clamped_share": float(np.mean((released == low) | (released == high))),
            "test_curve": list(trained.test_curve),
            "composition": "each value released once with Laplace noise of scale (high-low)/"
            "epsilon, clamped (post-processing): epsilon-label-DP (replace-one)",
        },
    )


SPEC = MechanismSpec(
    id="laplace-regression",
    title="Laplace on regression labels",
    summary="label value 0..K-1 + Laplace noise of scale (K-1)/eps, clamped; regression head, MSE",
    privacy_unit="label",
    task="regression",
    settings={},
    runner=run_laplace_regression,
)
