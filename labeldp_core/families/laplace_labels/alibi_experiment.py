"""ALIBI: Laplace on one-hot labels, the exact posterior over classes as soft labels, train."""

import numpy as np

from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.consensus import CONSENSUS_SETTING
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.laplace_labels.alibi_release import alibi_posterior
from labeldp_core.families.laplace_labels.experiment import mass_on_true_label
from labeldp_core.families.laplace_labels.label_prior import (
    PRIOR_SETTINGS,
    budget_table,
    prior_details,
    run_prior,
)
from labeldp_core.families.laplace_labels.release import (
    ONE_HOT_SENSITIVITY,
    laplace_one_hot_by_plan,
)
from labeldp_core.noise.noise_plans import laplace_plan

__all__ = ["SPEC", "run_alibi"]


def run_alibi(config: RunConfig, ctx: RunContext) -> Outcome:
    """Prior (free or paid), noisy one-hot at what is left, posterior (free), train on it.

    With ``noise=secure`` both the histogram and the one-hot vectors get exact discrete Laplace
    noise; the posterior is then the discrete likelihood's, which has the same form with the
    exact scale (see :mod:`labeldp_core.families.laplace_labels.alibi_release`).
    """
    data = ctx.dataset
    noise = config.setting("noise")
    estimate = run_prior(config, ctx)
    release = estimate.split.release_epsilon
    plan = laplace_plan(ONE_HOT_SENSITIVITY, release, noise)
    noisy = laplace_one_hot_by_plan(data.y_train, data.num_classes, plan, ctx.rng)
    # The likelihood's scale is exactly the one the plan drew with.
    posterior = alibi_posterior(noisy, plan.epsilon_spent, estimate.prior, scale=plan.scale)
    kept = mass_on_true_label(posterior, data.y_train)
    trained = ctx.train(posterior, message="training on ALIBI soft labels")
    one_hot = plan.describe("one-hot labels, each coordinate")
    table = budget_table(estimate, one_hot["noise_distribution"], plan.epsilon_spent)
    released = ["one-hot noise"] + (["label histogram noise"] if estimate.plan else [])
    return Outcome(
        epsilon_spent=table[-1]["epsilon"],
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=float(1.0 - kept.mean()),
        label_accuracy=float(kept.mean()),
        details={
            **prior_details(config, estimate, table),
            **one_hot,
            "random_draws": draw_sources(noise, released, {"training": TRAINING_DRAW}),
            "noise_scale": plan.scale,
            "posterior_argmax_accuracy": float(np.mean(posterior.argmax(axis=1) == data.y_train)),
            "label_accuracy_meaning": "mean posterior probability of the true label",
            "test_curve": list(trained.test_curve),
            "composition": "sequential: the noisy histogram prior (if any) and the noisy one-hot "
            "vectors each see every label once; the posterior is post-processing. "
            "epsilon-label-DP (replace-one) with epsilon the sum in the budget table",
        },
        diagnostics=("details.posterior_argmax_accuracy",),
    )


SPEC = MechanismSpec(
    id="alibi",
    title="ALIBI (Bayesian soft labels)",
    summary="Laplace on one-hot labels, then the exact posterior over classes as soft labels",
    privacy_unit="label",
    task="classification",
    settings=PRIOR_SETTINGS | {"noise": NOISE_SETTING, "consensus": CONSENSUS_SETTING},
    runner=run_alibi,
)
