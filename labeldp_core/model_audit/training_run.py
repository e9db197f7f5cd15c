"""One training with the canaries planted: under a mechanism, or without privacy (the control).

The control without privacy trains the run's model on the planted labels; for a mechanism that
trains no network (the DP prototypes) it is the run's own clean reference, the same prototypes
computed without noise from the planted labels, which the runner notes beside its release.

The run goes through the mechanism's own runner exactly as :func:`labeldp_core.experiments.run`
does, with a :class:`CanaryContext` instead of the plain context. Its intermediate products
(votes, priors, encoders) go to a throwaway cache, since they are computed from the planted labels
and the shared cache would serve them to ordinary runs. What the released classifier says about
each canary (its per-class scores) is cached under the run's config, the canaries' draw and the
role; the attack's guesses are computed from them by the audit (:mod:`.guesses`), so a change of
the attack re-scores the stored trainings instead of training again.
"""

import tempfile
from typing import Any

from labeldp_core.cache import ResultCache
from labeldp_core.cache.fingerprint import joined
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import RunConfig, mechanism_spec
from labeldp_core.model_audit.canaries import Canaries
from labeldp_core.model_audit.context import CanaryContext
from labeldp_core.registry import result_unit

__all__ = ["MECHANISM", "NON_PRIVATE", "SCORE_DIGITS", "canary_training", "training_code"]

#: The roles of a canary training: under the mechanism, or on the planted labels in the clear.
MECHANISM, NON_PRIVATE = "mechanism", "non-private"
#: Significant digits of the stored scores: a ratio of two softmax entries keeps 6 digits however
#: small they are, and rounding is a fixed function of the model's output (the attack may use any).
SCORE_DIGITS = 6


def training_code(config: RunConfig) -> str:
    """The code a canary training of ``config`` runs: its family's and this audit's."""
    return joined(result_unit(config.mechanism), __name__)


def canary_training(
    config: RunConfig,
    canaries: Canaries,
    role: str,
    cache: ResultCache,
    draw: dict[str, Any],
    progress: Progress = silent,
) -> dict[str, Any]:
    """``{"scores", "test_score", "delta"}`` of one training with ``canaries``; cached.

    ``scores`` holds the released classifier's per-class scores on each canary, ``(N, K)`` (a
    softmax, or the DP prototypes' similarities), to :data:`SCORE_DIGITS` significant digits.
    ``draw`` names how the canaries were drawn (dataset, count, seed, kind), for the cache key.
    """
    payload = {
        "config": config.to_dict(),
        "canaries": draw,
        "role": role,
    }
    if role == NON_PRIVATE:  # trains on the planted labels whatever the budget
        payload["config"] = payload["config"] | {"epsilon": None}
    return cache.json_or_compute(
        "model-audit-canaries",
        payload,
        lambda: _train(config, canaries, role, progress),
        required=["scores", "test_score", "delta"],
        by=training_code(config),
    )


def _train(config: RunConfig, canaries: Canaries, role: str, progress: Progress) -> dict:
    spec = mechanism_spec(config.mechanism)
    with tempfile.TemporaryDirectory(prefix="labeldp-canaries-") as scratch:
        throwaway = ResultCache(scratch)
        try:
            ctx = CanaryContext(config, spec.task, throwaway, progress, canaries=canaries)
            # No network to train: the non-private control is the run's own clean reference.
            clean = role == NON_PRIVATE and not spec.trains_model
            if role == NON_PRIVATE and not clean:
                trained = ctx.train(ctx.dataset.y_train, message="training on the canaries")
                score, delta = trained.final, 0.0
            elif clean:
                score, delta = spec.runner(config, ctx).baseline_score, 0.0
            else:
                outcome = spec.runner(config, ctx)
                score, delta = outcome.test_score, outcome.delta
            probabilities = ctx.canary_probabilities(clean=clean)
        finally:
            throwaway.close()
    if probabilities is None:
        raise InvalidInputError(
            f"mechanism '{config.mechanism}' noted no released classifier that the canary audit "
            "can read (neither a model trained on every training example, nor its released model, "
            "nor its released classifier's scores)"
        )
    return {
        "scores": [[float(f"{v:.{SCORE_DIGITS}g}") for v in row] for row in probabilities],
        "test_score": float(score),
        "delta": float(delta),
    }
