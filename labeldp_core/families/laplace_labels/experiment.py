"""Laplace on one-hot labels: noisy vectors, post-processed into training targets; train, score."""

import numpy as np

from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.consensus import CONSENSUS_SETTING
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig, Setting
from labeldp_core.families.laplace_labels.release import (
    DISCRETE_ARGMAX_MAX_SCALE,
    ONE_HOT_SENSITIVITY,
    POST_PROCESSING,
    argmax_accuracy,
    discrete_argmax_accuracy,
    laplace_one_hot_by_plan,
    post_process,
)
from labeldp_core.noise.noise_plans import LaplacePlan, laplace_plan

__all__ = ["SPEC", "expected_argmax_accuracy", "mass_on_true_label", "run_laplace"]


def mass_on_true_label(targets: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per example, the probability a training target gives the true label (0/1 for hard labels).

    Its mean is the label accuracy of soft targets; for hard labels it is the usual share kept.
    """
    if targets.ndim == 1:
        return (targets == labels).astype(np.float64)
    return targets[np.arange(labels.shape[0]), labels]


def expected_argmax_accuracy(plan: LaplacePlan, num_classes: int) -> float | None:
    """The closed-form chance that argmax of a noisy one-hot drawn by ``plan`` is the label.

    Random tie-breaking for secure (integer) noise; None beyond the discrete series' range.
    """
    if not plan.secure:
        return argmax_accuracy(plan.epsilon_spent, num_classes)
    if plan.scale > DISCRETE_ARGMAX_MAX_SCALE:
        return None
    return discrete_argmax_accuracy(plan.scale, num_classes)


def run_laplace(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label is released once, as a noisy vector at scale 2/ε; post-processing is free.

    With ``noise=secure`` the noise is exact discrete Laplace (integer vectors) and argmax
    breaks ties at random with coins from os.urandom; ``epsilon_spent`` is what the noise
    plan's scale guarantees, at most epsilon.
    """
    data = ctx.dataset
    post = config.setting("post")
    noise = config.setting("noise")
    plan = laplace_plan(ONE_HOT_SENSITIVITY, config.epsilon, noise)
    noisy = laplace_one_hot_by_plan(data.y_train, data.num_classes, plan, ctx.rng)
    targets = post_process(noisy, post, secure_ties=plan.secure)
    kept = mass_on_true_label(targets, data.y_train)
    trained = ctx.train(targets, message=f"training on {post} targets")
    hard = post_process(noisy, "argmax", secure_ties=plan.secure)
    released = ["one-hot noise"] + (["argmax tie-breaks"] if plan.secure else [])
    return Outcome(
        epsilon_spent=plan.epsilon_spent,
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=float(1.0 - kept.mean()),
        label_accuracy=float(kept.mean()),
        details={
            "post": post,
            "post_meaning": POST_PROCESSING[post],
            "noise_scale": plan.scale,
            **plan.describe("each one-hot coordinate"),
            "random_draws": draw_sources(noise, released, {"training": TRAINING_DRAW}),
            "argmax_accuracy": float(np.mean(hard == data.y_train)),
            "expected_argmax_accuracy": expected_argmax_accuracy(plan, data.num_classes),
            "uniform_rows": _uniform_rows(targets),
            "label_accuracy_meaning": "mean probability the training target gives the true label",
            "test_curve": list(trained.test_curve),
            "composition": "each label released once as a noisy one-hot vector (L1 sensitivity "
            "2, noise scale b, so epsilon_spent = 2/b <= epsilon): epsilon-label-DP "
            "(replace-one); post-processing is free",
        },
        diagnostics=("details.argmax_accuracy",),
    )


def _uniform_rows(targets: np.ndarray) -> float:
    """Share of soft targets that are uniform (every coordinate clamped to 0): no information."""
    if targets.ndim == 1:
        return 0.0
    return float(np.mean(np.ptp(targets, axis=1) == 0))


SPEC = MechanismSpec(
    id="laplace",
    title="Laplace on one-hot labels",
    summary="one-hot label + Laplace noise of scale 2/eps per coordinate, then argmax/soft/round",
    privacy_unit="label",
    task="classification",
    settings={
        "post": Setting(
            "argmax",
            "post-processing of the noisy vector into a training target",
            tuple(POST_PROCESSING),
        ),
        "noise": NOISE_SETTING,
        "consensus": CONSENSUS_SETTING,
    },
    runner=run_laplace,
)
