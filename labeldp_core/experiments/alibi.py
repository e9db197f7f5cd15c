"""ALIBI: Laplace on one-hot labels, the exact posterior over classes as soft labels, train."""

import numpy as np

from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.label_prior import PRIOR_SETTINGS, budget_table, estimate_prior
from labeldp_core.experiments.laplace import mass_on_true_label
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.mechanisms import (
    ONE_HOT_SENSITIVITY,
    alibi_posterior,
    laplace_epsilon,
    laplace_one_hot,
    laplace_scale,
)

__all__ = ["SPEC", "run_alibi"]


def run_alibi(config: RunConfig, ctx: RunContext) -> Outcome:
    """Prior (free or paid), noisy one-hot at what is left, posterior (free), train on it."""
    data = ctx.dataset
    estimate = estimate_prior(
        data.y_train, data.num_classes, config.epsilon, config.setting("prior"),
        config.setting("prior_share"), ctx.rng,
    )  # fmt: skip
    release = estimate.split.release_epsilon
    scale = laplace_scale(ONE_HOT_SENSITIVITY, release)
    noisy = laplace_one_hot(data.y_train, release, data.num_classes, ctx.rng)
    posterior = alibi_posterior(noisy, release, estimate.prior)
    kept = mass_on_true_label(posterior, data.y_train)
    trained = ctx.train(posterior, message="training on ALIBI soft labels")
    table = budget_table(
        estimate, f"Laplace on one-hot labels, scale 2/{release:.4g}",
        laplace_epsilon(ONE_HOT_SENSITIVITY, scale),
    )  # fmt: skip
    return Outcome(
        epsilon_spent=table[-1]["epsilon"],
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=float(1.0 - kept.mean()),
        label_accuracy=float(kept.mean()),
        details={
            "prior_kind": config.setting("prior"),
            "prior": estimate.prior.tolist(),
            "noisy_counts": list(estimate.noisy_counts),
            "budget": table,
            "noise_scale": scale,
            "posterior_argmax_accuracy": float(np.mean(posterior.argmax(axis=1) == data.y_train)),
            "label_accuracy_meaning": "mean posterior probability of the true label",
            "test_curve": list(trained.test_curve),
            "composition": "sequential: the noisy histogram prior (if any) and the noisy one-hot "
            "vectors each see every label once; the posterior is post-processing. "
            "epsilon-label-DP (replace-one) with epsilon the sum in the budget table",
        },
    )


SPEC = MechanismSpec(
    id="alibi",
    title="ALIBI (Bayesian soft labels)",
    summary="Laplace on one-hot labels, then the exact posterior over classes as soft labels",
    privacy_unit="label",
    task="classification",
    settings=PRIOR_SETTINGS,
    runner=run_alibi,
)
