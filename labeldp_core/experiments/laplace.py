"""Laplace on one-hot labels: noisy vectors, post-processed into training targets; train, score."""

import numpy as np

from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig, Setting
from labeldp_core.mechanisms import (
    ONE_HOT_SENSITIVITY,
    POST_PROCESSING,
    argmax_accuracy,
    laplace_epsilon,
    laplace_one_hot,
    laplace_scale,
    post_process,
)

__all__ = ["SPEC", "mass_on_true_label", "run_laplace"]


def mass_on_true_label(targets: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per example, the probability a training target gives the true label (0/1 for hard labels).

    Its mean is the label accuracy of soft targets; for hard labels it is the usual share kept.
    """
    if targets.ndim == 1:
        return (targets == labels).astype(np.float64)
    return targets[np.arange(labels.shape[0]), labels]


def run_laplace(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label is released once, as a noisy vector at scale 2/ε; post-processing is free."""
    data = ctx.dataset
    post = config.setting("post")
    scale = laplace_scale(ONE_HOT_SENSITIVITY, config.epsilon)
    noisy = laplace_one_hot(data.y_train, config.epsilon, data.num_classes, ctx.rng)
    targets = post_process(noisy, post)
    kept = mass_on_true_label(targets, data.y_train)
    trained = ctx.train(targets, message=f"training on {post} targets")
    hard = noisy.argmax(axis=1)
    return Outcome(
        epsilon_spent=laplace_epsilon(ONE_HOT_SENSITIVITY, scale),
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=float(1.0 - kept.mean()),
        label_accuracy=float(kept.mean()),
        details={
            "post": post,
            "post_meaning": POST_PROCESSING[post],
            "noise_scale": scale,
            "argmax_accuracy": float(np.mean(hard == data.y_train)),
            "expected_argmax_accuracy": argmax_accuracy(config.epsilon, data.num_classes),
            "uniform_rows": _uniform_rows(targets),
            "label_accuracy_meaning": "mean probability the training target gives the true label",
            "test_curve": list(trained.test_curve),
            "composition": "each label released once as a noisy one-hot vector (L1 sensitivity "
            "2, Laplace scale 2/epsilon): epsilon-label-DP (replace-one); post-processing is free",
        },
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
        )
    },
    runner=run_laplace,
)
