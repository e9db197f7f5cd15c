"""RR-on-bins: optimal output values for a prior, randomized response over them, regression head."""

import numpy as np

from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.laplace_labels.label_prior import (
    PRIOR_SETTINGS,
    budget_table,
    prior_details,
    run_prior,
)
from labeldp_core.families.laplace_labels.release import expected_regression_mse
from labeldp_core.families.laplace_labels.rr_bins_release import (
    best_constant_mse,
    bins_spent,
    expected_squared_error,
    optimal_bins,
    rr_on_bins_by_plan,
)
from labeldp_core.noise.noise_plans import rr_plan

__all__ = ["SPEC", "run_rr_bins"]


def run_rr_bins(config: RunConfig, ctx: RunContext) -> Outcome:
    """Prior (free or paid), bins for what is left of the budget, release, train, score.

    epsilon_spent is the prior's share plus the exact loss of the RR step's coins (0 with a
    single bin). With ``noise=secure`` the histogram's noise and every RR coin come from
    os.urandom.
    """
    data = ctx.dataset
    support = data.class_values
    values = support[data.y_train]
    noise = config.setting("noise")
    estimate = run_prior(config, ctx)
    bins = optimal_bins(support, estimate.prior, estimate.split.release_epsilon)
    coins = rr_plan(estimate.split.release_epsilon, bins.num_bins, noise)
    released = rr_on_bins_by_plan(values, bins, coins, ctx.rng)
    trained = ctx.train(released, message="training a regression head on RR-on-bins values")
    release_spent = bins_spent(coins)
    table = budget_table(estimate, f"randomized response over {bins.num_bins} bins", release_spent)
    empirical = np.bincount(data.y_train, minlength=data.num_classes) / data.n_train
    released_draws = ["RR-on-bins coins"] + (["label histogram noise"] if estimate.plan else [])
    return Outcome(
        epsilon_spent=table[-1]["epsilon"],
        test_score=trained.final,
        n_train=data.n_train,
        details={
            **prior_details(config, estimate, table),
            **coins.describe("RR-on-bins coins"),
            "random_draws": draw_sources(noise, released_draws, {"training": TRAINING_DRAW}),
            "num_bins": bins.num_bins,
            "bin_of_value": bins.bin_of_value.tolist(),
            "bin_outputs": bins.outputs.tolist(),
            "expected_label_mse_prior": expected_squared_error(bins, estimate.prior),
            "expected_label_mse": expected_squared_error(bins, empirical),
            "best_constant_mse": best_constant_mse(support, empirical),
            "laplace_expected_label_mse": float(
                empirical @ expected_regression_mse(support, config.epsilon, *support[[0, -1]])
            ),
            "label_mse": float(np.mean((released - values) ** 2)),
            "test_curve": list(trained.test_curve),
            "composition": "sequential: the noisy histogram prior (if any) and randomized "
            "response over bin indices each see every label once; epsilon-label-DP "
            "(replace-one) with epsilon the sum in the budget table",
        },
        diagnostics=(
            "details.expected_label_mse",
            "details.best_constant_mse",
            "details.laplace_expected_label_mse",
            "details.label_mse",
        ),
    )


SPEC = MechanismSpec(
    id="rr-bins",
    title="RR-on-bins (regression)",
    summary="randomized response over output values chosen to minimise expected squared error",
    privacy_unit="label",
    task="regression",
    settings=PRIOR_SETTINGS | {"noise": NOISE_SETTING},
    runner=run_rr_bins,
)
