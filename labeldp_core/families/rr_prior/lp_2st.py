"""LP-2ST (Ghazi et al. 2021): two-stage training, the first stage's model is the second's prior.

The training set is split in two halves by a seeded permutation of the indices (label-free).
Stage 1 releases the first half's labels by plain randomized response and trains a model on them;
that model's softmax on the second half's images is the prior with which RR-with-prior releases
the second half's labels. The final model trains on both halves' released labels.

Every label is released once, at the full epsilon, and the two halves are disjoint, so by parallel
composition the whole run is epsilon-label-DP: the stage-2 prior depends on the first half only
through its already-private released labels (post-processing).

k* of every second-half example is stored in the result cache (see
:func:`labeldp_core.families.rr_prior.experiment.load_set_sizes`); the first half has none
(plain RR).
"""

import numpy as np

from labeldp_core import training
from labeldp_core.accounting import parallel_composition
from labeldp_core.engine.consensus import CONSENSUS_SETTING
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.label_release import released_labels_outcome
from labeldp_core.engine.release_noise import NOISE_SETTING, TRAINING_DRAW, draw_sources
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.randomized_response.release import (
    expected_flip_rate,
    randomized_response_by_plan,
)
from labeldp_core.families.rr_prior.experiment import (
    PRIOR_SUMMARY_DIAGNOSTICS,
    prior_summary,
    set_guess_bound,
    set_size_details,
)
from labeldp_core.families.rr_prior.release import rr_with_prior_by_plan
from labeldp_core.noise.noise_plans import rr_plan

__all__ = ["SPEC", "run_lp_2st", "split_halves"]

#: Stream of the seeded generator that splits the indices (apart from the mechanism's draws).
_SPLIT_STREAM = 0x2572
_RELEASED_DRAWS = ["stage 1 RR coins", "stage 2 RR-with-prior coins"]
_SEEDED_DRAWS = {
    "split into halves": "seeded permutation of the indices: reads no label",
    "training": TRAINING_DRAW,
}
_DIAGNOSTICS = (
    *PRIOR_SUMMARY_DIAGNOSTICS,
    "details.stage1_flip_rate",
    "details.stage2_flip_rate",
    "details.stage2_expected_flip_rate",
    "details.confusion",
    "details.prior_guess_bound",
)


def split_halves(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two disjoint halves of ``range(n)`` from a permutation seeded by ``seed`` only."""
    order = np.random.default_rng([seed, _SPLIT_STREAM]).permutation(n)
    return np.sort(order[: n // 2]), np.sort(order[n // 2 :])


def run_lp_2st(config: RunConfig, ctx: RunContext) -> Outcome:
    """Stage 1: RR on half 1 and a model; stage 2: RR-with-prior on half 2; train on both.

    ``epsilon_spent`` is the parallel composition of the two stages' coins (each at epsilon).
    """
    data = ctx.dataset
    epsilon, noise = config.epsilon, config.setting("noise")
    plan = rr_plan(epsilon, data.num_classes, noise)
    first, second = split_halves(data.n_train, config.seed)
    released = np.empty_like(data.y_train)
    released[first] = randomized_response_by_plan(data.y_train[first], plan, ctx.rng)
    stage1 = ctx.train(
        released[first],
        images=data.x_train[first],
        start=0.0,
        end=0.45,
        message="stage 1: training on RR labels of half 1",
    )
    priors = training.predict_proba(stage1.model, data.x_train[second], ctx.train_settings)
    released[second] = rr_with_prior_by_plan(data.y_train[second], priors, plan, ctx.rng)
    flips = released != data.y_train
    stage2 = prior_summary(priors, data.y_train[second], epsilon)
    rr_expected = expected_flip_rate(epsilon, data.num_classes)
    uniform = np.full((len(first), data.num_classes), 1.0 / data.num_classes)
    expected = (len(first) * rr_expected + len(second) * stage2["expected_flip_rate"]) / len(flips)
    spent = parallel_composition([plan.epsilon_spent, plan.epsilon_spent])
    details = {
        "budget": {"stage1_epsilon": spent, "stage2_epsilon": spent, "spent": spent},
        "composition": (
            "parallel: stage 1 (RR) and stage 2 (RR-with-prior) release disjoint halves of "
            "the labels, each once at epsilon, so the whole run is epsilon-label-DP "
            "(replace-one); the stage-2 prior is post-processing of stage-1 releases"
        ),
        **plan.describe("randomized response coins (both stages)"),
        "random_draws": draw_sources(noise, _RELEASED_DRAWS, _SEEDED_DRAWS),
        "stage1_examples": len(first),
        "stage2_examples": len(second),
        "stage1_test_accuracy": stage1.final,
        "stage1_flip_rate": float(flips[first].mean()),
        "stage1_expected_flip_rate": rr_expected,
        "stage2_flip_rate": float(flips[second].mean()),
        "stage2_expected_flip_rate": stage2.pop("expected_flip_rate"),
        "expected_flip_rate": float(expected),
        "rr_expected_flip_rate": rr_expected,
        **stage2,
        **set_size_details(ctx, priors, epsilon, second),
        # Half 1 is released with no prior (one set: all K labels), half 2 with the model's.
        "prior_guess_bound": float(
            len(first) * set_guess_bound(uniform, data.y_train[first], epsilon, epsilon)
            + len(second) * set_guess_bound(priors, data.y_train[second], epsilon, epsilon)
        )
        / len(flips),
    }
    return released_labels_outcome(
        ctx,
        released,
        spent,
        details,
        _DIAGNOSTICS,
        message="stage 2: training on both halves",
        start=0.5,
    )


SPEC = MechanismSpec(
    id="lp-2st",
    title="LP-2ST (two-stage RR with prior)",
    summary="stage 1 RR on half the labels trains a prior for RR-with-prior on the other half; "
    "parallel composition",
    privacy_unit="label",
    task="classification",
    settings={"noise": NOISE_SETTING, "consensus": CONSENSUS_SETTING},
    runner=run_lp_2st,
)
