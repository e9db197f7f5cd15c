"""Randomized response experiment: release every training label by K-ary RR, train, score."""

from labeldp_core.experiments.context import RunContext, label_statistics
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.mechanisms import expected_flip_rate, keep_probability, randomized_response

__all__ = ["SPEC", "run_rr"]


def run_rr(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each label is released once with the whole budget, so epsilon_spent equals epsilon."""
    data = ctx.dataset
    released = randomized_response(data.y_train, config.epsilon, data.num_classes, ctx.rng)
    stats = label_statistics(data.y_train, released, data.num_classes)
    trained = ctx.train(released, message="training on released labels")
    return Outcome(
        epsilon_spent=config.epsilon,
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=stats["flip_rate"],
        label_accuracy=stats["label_accuracy"],
        details={
            "keep_probability": keep_probability(config.epsilon, data.num_classes),
            "expected_flip_rate": expected_flip_rate(config.epsilon, data.num_classes),
            "confusion": stats["confusion"],
            "test_curve": list(trained.test_curve),
            "composition": "each label released once: epsilon-label-DP (replace-one)",
        },
    )


SPEC = MechanismSpec(
    id="rr",
    title="Randomized response",
    summary="K-ary randomized response: keep each label with probability e^eps/(e^eps+K-1)",
    privacy_unit="label",
    task="classification",
    settings={},
    runner=run_rr,
)
