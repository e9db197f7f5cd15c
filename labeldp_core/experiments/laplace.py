"""Laplace on one-hot labels: noisy vectors, post-processed into training targets; train, score."""

from typing import Any

import numpy as np

from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.noise import NOISE_SETTING, noise_details
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
from labeldp_core.mechanisms.laplace_labels import (
    DISCRETE_ARGMAX_MAX_SCALE,
    discrete_argmax_accuracy,
)
from labeldp_core.mechanisms.secure_noise import guaranteed_epsilon, rational_scale

__all__ = ["SPEC", "mass_on_true_label", "one_hot_noise", "run_laplace"]


def mass_on_true_label(targets: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per example, the probability a training target gives the true label (0/1 for hard labels).

    Its mean is the label accuracy of soft targets; for hard labels it is the usual share kept.
    """
    if targets.ndim == 1:
        return (targets == labels).astype(np.float64)
    return targets[np.arange(labels.shape[0]), labels]


def one_hot_noise(config: RunConfig, epsilon: float, num_classes: int) -> dict[str, Any]:
    """The noise of a one-hot release at ``epsilon`` under the run's ``noise`` setting.

    Keys: ``scale`` (float), ``epsilon_spent`` (what that exact scale guarantees),
    ``expected_argmax_accuracy`` (closed form, random tie-breaking for secure noise, None
    beyond the discrete series' range) and ``details`` (:func:`noise_details`).
    """
    if config.setting("noise") == "secure":
        exact = rational_scale(ONE_HOT_SENSITIVITY, epsilon)
        scale = float(exact)
        expected = (
            discrete_argmax_accuracy(scale, num_classes)
            if scale <= DISCRETE_ARGMAX_MAX_SCALE
            else None
        )
        return {
            "scale": scale,
            "epsilon_spent": guaranteed_epsilon(ONE_HOT_SENSITIVITY, exact),
            "expected_argmax_accuracy": expected,
            "details": noise_details(
                "secure", f"discrete Laplace, scale {exact} per coordinate", exact
            ),
        }
    scale = laplace_scale(ONE_HOT_SENSITIVITY, epsilon)
    return {
        "scale": scale,
        "epsilon_spent": laplace_epsilon(ONE_HOT_SENSITIVITY, scale),
        "expected_argmax_accuracy": argmax_accuracy(epsilon, num_classes),
        "details": noise_details("float", f"Laplace, scale {scale:.6g} per coordinate", None),
    }


def run_laplace(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label is released once, as a noisy vector at scale 2/ε; post-processing is free.

    With ``noise=secure`` the noise is exact discrete Laplace (integer vectors) and argmax
    breaks ties at random; ``epsilon_spent`` is what the rounded-up rational scale guarantees.
    """
    data = ctx.dataset
    post = config.setting("post")
    noise = config.setting("noise")
    facts = one_hot_noise(config, config.epsilon, data.num_classes)
    noisy = laplace_one_hot(data.y_train, config.epsilon, data.num_classes, ctx.rng, noise=noise)
    tie_breaker = ctx.rng if noise == "secure" else None
    targets = post_process(noisy, post, tie_breaker)
    kept = mass_on_true_label(targets, data.y_train)
    trained = ctx.train(targets, message=f"training on {post} targets")
    hard = post_process(noisy, "argmax", tie_breaker)
    return Outcome(
        epsilon_spent=facts["epsilon_spent"],
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=float(1.0 - kept.mean()),
        label_accuracy=float(kept.mean()),
        details={
            "post": post,
            "post_meaning": POST_PROCESSING[post],
            "noise_scale": facts["scale"],
            **facts["details"],
            "argmax_accuracy": float(np.mean(hard == data.y_train)),
            "expected_argmax_accuracy": facts["expected_argmax_accuracy"],
            "uniform_rows": _uniform_rows(targets),
            "label_accuracy_meaning": "mean probability the training target gives the true label",
            "test_curve": list(trained.test_curve),
            "composition": "each label released once as a noisy one-hot vector (L1 sensitivity "
            "2, noise scale b, so epsilon_spent = 2/b): epsilon-label-DP (replace-one); "
            "post-processing is free",
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
        ),
        "noise": NOISE_SETTING,
    },
    runner=run_laplace,
)
