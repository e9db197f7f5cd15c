"""PATE experiment: teachers vote on public queries, noisy-max answers train a student.

The training split is cut (by the run's seed) into a public part, whose inputs are the queries,
and ``teachers`` disjoint private shards. The teachers' votes do not depend on epsilon, so they
are computed once per (dataset, teachers, model, teacher epochs, seed) and cached; an epsilon
sweep only re-aggregates and retrains the student. The public part's labels are never given to
the student: they only score the teachers and the released labels.

With ``features=patches`` (:mod:`~labeldp_core.families.pate.patch_student`) teachers and
student are logistic regressions on label-free patch features learnt from the images, and the
queries are spread over the public pool by a k-means of those features; the accounting is the
same, since it depends only on the number of queries and the noise.
"""

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from labeldp_core import training
from labeldp_core.base.threads import single_thread
from labeldp_core.data.label_free_features import patch_settings
from labeldp_core.data.splits import PUBLIC_MAX, TeacherSplit, teacher_split
from labeldp_core.data.tables import is_table
from labeldp_core.engine.blocks.release_noise import NOISE_SETTING, draw_sources
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import within
from labeldp_core.engine.spec import (
    COMMON_SETTINGS,
    MechanismSpec,
    Outcome,
    RunConfig,
    Scalar,
    Setting,
)
from labeldp_core.engine.tuning import Tuning
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.pate.accounting import (
    AGGREGATORS,
    calibrate_noise,
    epsilon_as_queries_grow,
    pate_epsilon,
)
from labeldp_core.families.pate.release import (
    UNANSWERED,
    confident_gnmax_by_plan,
    noisy_argmax_by_plan,
    top_two_gap,
    vote_counts,
)
from labeldp_core.noise.noise_plans import (
    GaussianPlan,
    LaplacePlan,
    gaussian_plan,
    laplace_plan_for_scale,
)
from labeldp_core.training import ProgressFn, TrainOutcome, TrainSettings
from labeldp_core.training.ensemble import ensemble_votes
from labeldp_core.training.self_training import SelfTraining, TrainFn, self_train

if TYPE_CHECKING:
    from labeldp_core.families.pate.patch_student import FeatureSpace

__all__ = [
    "MIN_STEPS",
    "PATE_TUNING",
    "PRIVACY_STATEMENT",
    "SECURE_ACCOUNTING",
    "SPEC",
    "Calibration",
    "calibration",
    "epochs_for",
    "noise_plans",
    "pate_recipe",
    "privacy_statement",
    "run_pate",
    "student_sentence",
    "teacher_votes",
    "votes_payload",
]

#: Share of a cold run's progress bar spent training teachers.
_TEACHER_SHARE = 0.8
#: Number of query counts at which the epsilon-vs-queries curve is evaluated.
_CURVE_POINTS = 30
#: Every model PATE trains (teachers, student) takes at least this many optimiser steps.
MIN_STEPS = 200
#: How the feature models of ``features=patches`` are read: flat inputs, no image layout.
_FEATURE_SETTINGS = TrainSettings(model="logistic")

LABEL_STATEMENT = (
    "Neighbouring inputs differ in one private training label. Changing it changes only the "
    "teacher trained on that label's shard, so on every query at most one vote moves from one "
    "class to another (each vote count changes by at most 1); the accounting bounds exactly that "
    "change, so the released labels and the student are (epsilon, delta)-label-DP."
)
#: On pixels each teacher reads its own shard's images and labels and nothing private else.
WHOLE_EXAMPLE = (
    "The same bound covers replacing a whole private example (image and label), or even a whole "
    "shard, since that too changes one teacher only."
)
#: With features=patches every private image enters every teacher's features and the queries.
NO_WHOLE_EXAMPLE = (
    "It does not cover replacing a private image: with features=patches the dictionary of image "
    "patches learnt from every training image enters every teacher's features and the choice of "
    "queries, so one image changes them all (label DP takes the images as public)."
)
ADD_REMOVE = (
    "It does not by itself cover adding or removing an example here: shards are cut by position "
    "from a seeded permutation, so a removal would shift other examples between shards (with "
    "shard membership fixed per example, e.g. by a hash of its id, the same epsilon would cover "
    "add/remove too)."
)
#: What the epsilon of a run on pixels covers (see :func:`privacy_statement`).
PRIVACY_STATEMENT = f"{LABEL_STATEMENT} {WHOLE_EXAMPLE} {ADD_REMOVE}"
COMPOSITION = (
    "Rényi DP of every answered query (and of every threshold check for confident-gnmax) summed "
    "over the queries, converted to (epsilon, delta) by minimising over Rényi orders "
    "(Papernot et al. 2018). epsilon_spent is the data-independent bound with every query paying "
    "every step: it holds before any vote is seen and may be published as is."
)
DATA_DEPENDENT_NOTE = (
    "The data-dependent epsilon is computed from the private votes, so it is itself private: "
    "publishing it needs the smooth-sensitivity release of Papernot et al. 2018 (Section 4.3). "
    "The data-independent epsilon is the one safe to publish as is."
)
SECURE_ACCOUNTING = (
    "Secure noise: the vote counts are integers and get exact integer noise from os.urandom. "
    "Discrete Laplace of scale b on the counts is (2/b)-DP exactly as the continuous one, and "
    "the discrete Gaussian's Rényi DP is at most the continuous Gaussian's, alpha/sigma^2 for "
    "GNMax and alpha/(2 sigma1^2) for the threshold check (Canonne, Kamath, Steinke 2020, "
    "Proposition 5 and Theorem 15), so the data-independent accounting is unchanged; it uses "
    "the noise actually drawn (b or sigma^2 rounded up to a fraction), which is never below the "
    "calibrated noise, so epsilon_spent <= epsilon. The data-dependent bound uses the discrete "
    "noise's exact tails, counting ties (broken at random) against the plurality."
)
ANSWERED_ONLY_SCOPE = (
    "Charging GNMax only for the answered queries is a valid guarantee only under a Rényi "
    "filter whose budget is fixed before any query and that stops answering once it is spent "
    "(Feldman & Zrnic 2021). This run answers every query that passes the threshold, so this "
    "figure shows what such a filter would charge; the run's guarantee is epsilon_spent, which "
    "charges every query."
)
SELF_TRAINING = (
    "The student trains on the answered queries' noisy labels, then labels the public part's "
    "other images itself and retrains on its confident predictions (pseudo-labels with a "
    "confidence threshold: Lee 2013; Sohn et al. 2020), as PATE 2018 trains its student "
    "semi-supervised on the whole public set. It reads the public images, never their labels: "
    "post-processing of the release, so epsilon is unchanged."
)
PATCH_FEATURES = (
    "With features=patches the teachers and the student learn on label-free features: a k-means "
    "dictionary of image patches learnt from every training image, public and private, its codes "
    "standardised on the public part's images, and the queries are the public images nearest the "
    "centres of a k-means of those codes. All of it reads images only, which label DP takes as "
    "public (the private images' labels are what it protects): no label enters the features or "
    "the choice of queries, each teacher still reads only its own shard's labels, and the "
    "accounting, which depends on the number of queries and the noise alone, is unchanged."
)
_SEEDED_DRAWS = {
    "teacher and student training": "seeded by the run: the guarantee holds for any fixed "
    "teachers, and the student trains on the released labels and the public images "
    "(post-processing)",
    "public/private split and shards": "seeded permutation of the indices: reads no label",
}
_DIAGNOSTICS = (
    "details.epsilon_data_dependent",
    "details.epsilon_curve.data_dependent",
    "details.teacher_accuracy",
    "details.plurality_accuracy",
    "details.changed_by_noise",
    "details.top_votes",
    "details.top_two_gap",
    "details.plurality",
    "details.true_labels",
    "details.student_clean_labels_accuracy",
)
DIAGNOSTICS_NOTE = (
    "Teacher accuracies, agreement and the noise's effect are computed from the votes without "
    "noise and from the public part's labels: they explain the mechanism and are not private."
)


def epochs_for(examples: int, batch_size: int, epochs: int) -> int:
    """``epochs``, raised so that training takes at least :data:`MIN_STEPS` optimiser steps.

    A shard of a few dozen examples, or a few hundred answered queries, fits in a handful of
    batches, so a handful of epochs would train nothing.

    >>> epochs_for(232, 32, 20), epochs_for(24, 32, 20), epochs_for(60000, 32, 5)
    (25, 200, 5)
    """
    steps_per_epoch = max(1, math.ceil(examples / batch_size))
    return max(epochs, math.ceil(MIN_STEPS / steps_per_epoch))


def _teacher_settings(config: RunConfig, split: TeacherSplit) -> TrainSettings:
    batch_size = config.setting("batch_size")
    return TrainSettings(
        model=config.setting("teacher_model"),
        epochs=epochs_for(split.shard_sizes[0], batch_size, config.setting("teacher_epochs")),
        batch_size=batch_size,
        learning_rate=config.setting("learning_rate"),
    )


def _student_settings(ctx: RunContext, examples: int) -> TrainSettings:
    settings = ctx.train_settings
    return replace(settings, epochs=epochs_for(examples, settings.batch_size, settings.epochs))


def _patches(config: RunConfig) -> bool:
    return config.setting("features") == "patches"


def votes_payload(config: RunConfig, split: TeacherSplit) -> dict[str, object]:
    """What the teachers' votes depend on: the cache key of :func:`teacher_votes`."""
    if _patches(config):
        from labeldp_core.families.pate.patch_student import LOGISTIC_C  # torch: patches only

        return {
            "dataset": config.dataset,
            "teachers": len(split.shards),
            "model": "logistic on patch features",
            "features": "patches",
            **patch_settings(),
            "logistic_c": LOGISTIC_C,
            "seed": config.seed,
            "public": int(split.public.size),
        }
    settings = _teacher_settings(config, split)
    return {
        "dataset": config.dataset,
        "teachers": len(split.shards),
        "model": settings.model,
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "learning_rate": settings.learning_rate,
        "seed": config.seed,
        "public": int(split.public.size),
    }


@dataclass(frozen=True)
class _Features:
    """``features=patches``: the feature space and the public part's and test set's features."""

    space: "FeatureSpace"
    public: np.ndarray
    test: np.ndarray


def _patch_features(ctx: RunContext, split: TeacherSplit) -> _Features:
    """Learn the patch dictionary on every training image and encode the public part and test.

    Raises:
        InvalidInputError: if the dataset is a table (it has no images to cut patches from).
    """
    if is_table(ctx.config.dataset):
        raise InvalidInputError(
            f"features=patches cuts patches out of images and {ctx.config.dataset} is a table "
            "of features; use features=pixels"
        )
    from labeldp_core.families.pate.patch_student import feature_space  # torch: patches only

    ctx.progress(0.0, "learning a dictionary of image patches (no labels) and encoding")
    data = ctx.dataset
    public = data.x_train[split.public]
    space = feature_space(data.x_train, public, ctx.config.seed)
    return _Features(space, space.encode(public), space.encode(data.x_test))


def teacher_votes(
    ctx: RunContext, split: TeacherSplit, end: float = 1.0, features: _Features | None = None
) -> np.ndarray:
    """Every teacher's vote on every public example, ``(teachers, public)``, cached.

    Progress is reported on ``0..end`` of the run's bar while teachers train. With
    ``features`` (``features=patches``) the teachers are logistic regressions on them.
    """
    config, data = ctx.config, ctx.dataset
    report = within(ctx.progress, 0.0, end)

    def compute() -> dict[str, np.ndarray]:
        def on_teacher(done: int, total: int) -> None:
            report(done / total, f"training teachers: {done}/{total}")

        report(0.0, f"training teachers: 0/{len(split.shards)}")
        if features is not None:
            from labeldp_core.families.pate.patch_student import logistic_votes

            train = features.space.encode(data.x_train)
            return {
                "votes": logistic_votes(
                    train, data.y_train, split.shards, features.public, data.num_classes, on_teacher
                )
            }
        votes = ensemble_votes(
            data.x_train,
            data.y_train,
            split.shards,
            data.x_train[split.public],
            data.num_classes,
            _teacher_settings(config, split),
            config.seed,
            on_teacher,
        )
        return {"votes": votes}

    payload = votes_payload(config, split)
    return ctx.cache.arrays_or_compute(
        "pate-votes", payload, compute, required=["votes"], by=__name__
    )["votes"]


def noise_plans(
    config: RunConfig, noise: float
) -> tuple[LaplacePlan | GaussianPlan, GaussianPlan | None]:
    """The plans of the noise the aggregator draws for the calibrated ``noise``.

    The answers' plan (LNMax: Laplace of scale b; GNMax: Gaussian of sigma, sigma2 for
    confident-gnmax) and, for confident-gnmax, the threshold check's (sigma1). Float plans use
    the calibrated noise itself; secure plans round it up (b to a fraction, sigma^2 by
    ``rational_variance``) and the accounting uses what they draw, never less noise.
    """
    mode = config.setting("noise")
    if config.setting("aggregator") == "lnmax":
        return laplace_plan_for_scale(noise, mode), None
    check = None
    if config.setting("aggregator") == "confident-gnmax":
        check = gaussian_plan(config.setting("threshold_noise_ratio") * noise, mode)
    return gaussian_plan(noise, mode), check


def _plan_details(answer: LaplacePlan | GaussianPlan, check: GaussianPlan | None) -> dict:
    details = answer.describe("answers, each vote count")
    if check is not None:
        threshold = check.describe("threshold check, the top count")["noise_distribution"]
        details["noise_distribution"] += f"; {threshold}"
    return details


def _checkpoints(queries: int) -> list[int]:
    return sorted({round(x) for x in np.geomspace(1, queries, _CURVE_POINTS)})


def _student_train_fn(ctx: RunContext, examples: int) -> TrainFn:
    """Trains a student from scratch on hard labels, scored on the test set, one thread."""
    data, settings = ctx.dataset, _student_settings(ctx, examples)

    def train(images: np.ndarray, labels: np.ndarray, on_epoch: ProgressFn | None) -> TrainOutcome:
        with single_thread():  # small batches: one thread is as fast, and robust when busy
            return training.train_classifier(
                images,
                labels,
                data.x_test,
                data.y_test,
                data.num_classes,
                settings,
                ctx.config.seed,
                on_epoch,
            )

    return train


def _train_student(
    ctx: RunContext, images: np.ndarray, labels: np.ndarray, start: float, end: float, message: str
) -> TrainOutcome:
    report = within(ctx.progress, start, end)

    def on_epoch(done: int, total: int) -> None:
        report(done / total, f"{message}: epoch {done}/{total}")

    return _student_train_fn(ctx, labels.size)(images, labels, on_epoch)


def _self_trained_student(
    ctx: RunContext,
    images: np.ndarray,
    labels: np.ndarray,
    pool: np.ndarray,
    start: float,
    end: float,
) -> SelfTraining:
    """The student on the noisy answers, then self-trained on the public pool's images."""
    config = ctx.config
    return self_train(
        _student_train_fn(ctx, labels.size),
        images,
        labels,
        pool,
        _student_settings(ctx, labels.size),
        config.setting("self_training_rounds"),
        config.setting("pseudo_label_confidence"),
        within(ctx.progress, start, end),
    )


def _clean_student(
    ctx: RunContext, images: np.ndarray, labels: np.ndarray, start: float, end: float
) -> float:
    """Test accuracy of the student trained on the *true* labels of the same queries (cached)."""
    config = ctx.config
    settings = _student_settings(ctx, labels.size)
    payload = {
        "dataset": config.dataset,
        "seed": config.seed,
        "queries": int(labels.size),
        "model": settings.model,
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "learning_rate": settings.learning_rate,
    }

    def compute() -> dict[str, float]:
        message = "student on the true labels (reference)"
        return {"score": _train_student(ctx, images, labels, start, end, message).final}

    return float(
        ctx.cache.json_or_compute(
            "pate-student-clean", payload, compute, required=["score"], by=__name__
        )["score"]
    )


@dataclass(frozen=True)
class Calibration:
    """The split, the queries asked and the noise that meets the budget, before any training."""

    split: TeacherSplit
    queries: int
    noise: float
    answer_plan: LaplacePlan | GaussianPlan
    check_plan: GaussianPlan | None

    @property
    def used(self) -> float:
        """The answers' noise as drawn (a secure plan rounds it up): Laplace b or Gaussian sigma."""
        plan = self.answer_plan
        return plan.scale if isinstance(plan, LaplacePlan) else plan.sigma


@dataclass(frozen=True)
class _Release:
    """The vote counts of the queries, the answers released and which queries were answered."""

    counts: np.ndarray
    released: np.ndarray
    answered: np.ndarray
    query_index: np.ndarray


def calibration(config: RunConfig, n_train: int) -> Calibration:
    """Split of ``n_train`` rows, and the noise (checked for secure noise) that meets the budget.

    Reads no label: what a run of ``config`` draws is known before any training (the canary
    audit's ceiling reads it, :mod:`~labeldp_core.families.pate.audit_ceiling`).
    """
    split = teacher_split(n_train, config.setting("teachers"), config.seed)
    queries = min(config.setting("queries"), split.public.size)
    noise = calibrate_noise(
        config.epsilon,
        queries,
        config.setting("delta"),
        aggregator=config.setting("aggregator"),
        threshold_noise_ratio=config.setting("threshold_noise_ratio"),
    )
    return Calibration(split, queries, noise, *noise_plans(config, noise))


def _release(
    config: RunConfig, counts: np.ndarray, cal: Calibration, ctx: RunContext
) -> np.ndarray:
    """The aggregator's answers, drawn by the calibration's plans (whose noise it accounts)."""
    if cal.check_plan is None:
        return noisy_argmax_by_plan(counts, cal.answer_plan, ctx.rng)
    return confident_gnmax_by_plan(
        counts,
        ctx.rng,
        threshold=config.setting("threshold") * config.setting("teachers"),
        check=cal.check_plan,
        answers=cal.answer_plan,
    )


def _query_positions(config: RunConfig, cal: Calibration, features: _Features | None) -> np.ndarray:
    """Positions in the public part of the queries: its first ones, or spread by the features."""
    if features is None:
        return np.arange(cal.queries)
    from labeldp_core.families.pate.patch_student import spread_queries

    return spread_queries(features.public, cal.queries, config.seed)


def _answer(
    config: RunConfig, ctx: RunContext, votes: np.ndarray, cal: Calibration, positions: np.ndarray
) -> _Release:
    """Count the teachers' votes on the queries and release the aggregator's noisy answers."""
    counts = vote_counts(votes[:, positions], ctx.dataset.num_classes)
    released = _release(config, counts, cal, ctx)
    return _Release(counts, released, released != UNANSWERED, cal.split.public[positions])


def _account(config: RunConfig, release: _Release, cal: Calibration) -> dict[str, Any]:
    """Both epsilons, the curves as queries grow, and the answered-only figures of confident."""
    confident = config.setting("aggregator") == "confident-gnmax"
    teachers = config.setting("teachers")
    accounting = {
        "aggregator": config.setting("aggregator"),
        "noise": cal.used,
        "threshold": config.setting("threshold") * teachers if confident else None,
        "threshold_sigma": None if cal.check_plan is None else cal.check_plan.sigma,
        "discrete": config.setting("noise") == "secure",
    }
    counts, delta, answered = release.counts, config.setting("delta"), release.answered
    mask = answered if confident else None
    checkpoints = _checkpoints(cal.queries)

    def grow(**kwargs: Any) -> list[float]:
        return epsilon_as_queries_grow(counts, delta, checkpoints, **kwargs, **accounting).tolist()

    figures: dict[str, Any] = {
        "epsilon_data_independent": pate_epsilon(counts, delta, data_dependent=False, **accounting),
        "epsilon_data_dependent": pate_epsilon(counts, delta, answered=mask, **accounting),
        "threshold_votes": accounting["threshold"],
        "threshold_sigma": accounting["threshold_sigma"],
    }
    curve = {
        "queries": checkpoints,
        "data_independent": grow(data_dependent=False),
        "data_dependent": grow(answered=mask),
    }
    if confident:
        figures["epsilon_data_independent_answered_only"] = pate_epsilon(
            counts, delta, data_dependent=False, answered=answered, **accounting
        )
        figures["answered_only_scope"] = ANSWERED_ONLY_SCOPE
        curve["data_independent_answered_only"] = grow(data_dependent=False, answered=answered)
    return figures | {"epsilon_curve": curve}


def _pool_positions(release: _Release, positions: np.ndarray, public: int) -> np.ndarray:
    """Positions in the public part of the student's unlabelled pool: every image not answered."""
    rest = np.ones(public, dtype=bool)
    rest[positions] = False
    return np.concatenate([positions[~release.answered], np.flatnonzero(rest)])


def _students(
    ctx: RunContext, release: _Release, cal: Calibration, positions: np.ndarray, start: float
) -> tuple[SelfTraining, float, int]:
    """The self-trained student, the same queries' student on true labels, and the pool size."""
    data, answered, query_index = ctx.dataset, release.answered, release.query_index
    images = data.x_train[query_index]
    middle = start + (1 - start) / 2
    pool_index = cal.split.public[_pool_positions(release, positions, cal.split.public.size)]
    pool = data.x_train[pool_index]
    trained = _self_trained_student(
        ctx, images[answered], release.released[answered], pool, start, middle
    )
    clean = _clean_student(ctx, images, data.y_train[query_index], middle, 1.0)
    return trained, clean, len(pool)


def _patch_students(
    ctx: RunContext,
    release: _Release,
    cal: Calibration,
    positions: np.ndarray,
    features: _Features,
) -> tuple[SelfTraining, float, int, Any]:
    """:func:`_students` on the patch features, and the released student as an image model."""
    from labeldp_core.families.pate.patch_student import PatchClassifier, fit_logistic

    data, answered, config = ctx.dataset, release.answered, ctx.config

    def train(inputs: np.ndarray, labels: np.ndarray, on_epoch: ProgressFn | None) -> TrainOutcome:
        layer = fit_logistic(inputs, labels, data.num_classes)
        scores = training.predict_proba(layer, features.test, _FEATURE_SETTINGS)
        return TrainOutcome(layer, (float(np.mean(scores.argmax(axis=1) == data.y_test)),))

    asked = features.public[positions]
    pool = features.public[_pool_positions(release, positions, cal.split.public.size)]
    trained = self_train(
        train,
        asked[answered],
        release.released[answered],
        pool,
        _FEATURE_SETTINGS,
        config.setting("self_training_rounds"),
        config.setting("pseudo_label_confidence"),
        ctx.progress,
    )
    clean = train(asked, data.y_train[release.query_index], None).final
    student = PatchClassifier(features.space, trained.final.model, data.x_train.shape[1:])
    return trained, clean, len(pool), student


def run_pate(config: RunConfig, ctx: RunContext) -> Outcome:
    """Teachers vote, the aggregator answers with noise calibrated to epsilon, a student learns.

    The noise is the smallest whose data-independent epsilon over the queries asked meets the
    budget; that data-independent epsilon is ``epsilon_spent``. Steps: calibrate (before any
    teacher trains), votes, answers, accounting, students, details.
    """
    cal = calibration(config, ctx.dataset.n_train)
    features = _patch_features(ctx, cal.split) if _patches(config) else None
    positions = _query_positions(config, cal, features)
    votes_key = ctx.cache.key("pate-votes", votes_payload(config, cal.split), __name__)
    votes_cached = votes_key in ctx.cache
    teacher_end = 0.0 if votes_cached else _TEACHER_SHARE
    votes = teacher_votes(ctx, cal.split, teacher_end, features)
    release = _answer(config, ctx, votes, cal, positions)
    figures = _account(config, release, cal)
    if features is None:
        trained, clean, pool = _students(ctx, release, cal, positions, teacher_end)
        student = trained.final.model
    else:
        trained, clean, pool, student = _patch_students(ctx, release, cal, positions, features)
    ctx.note_released_model(student)  # the student: the canary audit reads it
    truth = ctx.dataset.y_train[release.query_index]
    answered = release.answered
    correct = release.released[answered] == truth[answered]
    label_accuracy = float(correct.mean()) if answered.any() else None
    details = (
        _facts(config, ctx, cal, release, votes)
        | figures
        | _student_details(config, ctx, trained, clean, pool, int(answered.sum()))
    )
    return Outcome(
        epsilon_spent=figures["epsilon_data_independent"],
        delta=config.setting("delta"),
        test_score=trained.final.final,
        n_train=int(answered.sum()),
        flip_rate=None if label_accuracy is None else 1.0 - label_accuracy,
        label_accuracy=label_accuracy,
        details=details,
        diagnostics=_DIAGNOSTICS,
    )


def _facts(
    config: RunConfig, ctx: RunContext, cal: Calibration, release: _Release, votes: np.ndarray
) -> dict[str, Any]:
    """What ran (noise, plans, draws, split, teachers) and what the votes and answers were."""
    data, split, aggregator = ctx.dataset, cal.split, config.setting("aggregator")
    secure = config.setting("noise") == "secure"
    counts, released, answered = release.counts, release.released, release.answered
    truth = data.y_train[release.query_index]
    plurality = np.argmax(counts, axis=1)
    smallest, largest = split.shard_sizes
    changed = released[answered] != plurality[answered]
    return {
        "aggregator": aggregator,
        "delta": config.setting("delta"),
        "noise": cal.used,
        "noise_calibrated": cal.noise,
        "noise_kind": ("discrete " if secure else "")
        + ("Laplace scale b" if aggregator == "lnmax" else "Gaussian sigma"),
        **_plan_details(cal.answer_plan, cal.check_plan),
        "random_draws": draw_sources(
            config.setting("noise"), _released_draws(aggregator, secure), _SEEDED_DRAWS
        ),
        **({"secure_accounting": SECURE_ACCOUNTING} if secure else {}),
        "queries_requested": config.setting("queries"),
        "queries": cal.queries,
        "answered": int(answered.sum()),
        "teachers": len(split.shards),
        "features": config.setting("features"),
        "query_choice": "spread by a k-means of the public part's features (no label read)"
        if _patches(config)
        else "the first of the public part, in the seeded order",
        "teacher_model": "logistic regression on the patch features"
        if _patches(config)
        else config.setting("teacher_model"),
        "teacher_epochs": None if _patches(config) else _teacher_settings(config, split).epochs,
        "split": {
            "train": data.n_train,
            "public": int(split.public.size),
            "private": split.private_size,
            "shard_size_min": smallest,
            "shard_size_max": largest,
            "test": data.n_test,
        },
        "teacher_accuracy": (votes == data.y_train[split.public][None, :]).mean(axis=1).tolist(),
        "plurality_accuracy": float(np.mean(plurality == truth)),
        "changed_by_noise": float(np.mean(changed)) if answered.any() else 0.0,
        "top_votes": counts.max(axis=1).astype(int).tolist(),
        "top_two_gap": top_two_gap(counts).astype(int).tolist(),
        "plurality": plurality.tolist(),
        "released": released.tolist(),
        "true_labels": truth.tolist(),
    }


def _student_details(
    config: RunConfig,
    ctx: RunContext,
    trained: SelfTraining,
    clean: float,
    pool: int,
    answered: int,
) -> dict[str, Any]:
    """How the student learned, and the statements every PATE result carries."""
    patches = _patches(config)
    return {
        "student_model": "logistic regression on the patch features"
        if patches
        else ctx.train_settings.model,
        "student_epochs": None if patches else _student_settings(ctx, answered).epochs,
        "min_steps": MIN_STEPS,
        "student_test_curve": list(trained.final.test_curve),
        "student_supervised_accuracy": trained.supervised.final,
        "self_training": {
            "rounds": config.setting("self_training_rounds"),
            "confidence": config.setting("pseudo_label_confidence"),
            "pool": pool,
            "pseudo_labelled": list(trained.pseudo_labelled),
            "method": SELF_TRAINING,
        },
        "student_clean_labels_accuracy": clean,
        "privacy_unit_statement": privacy_statement(patches),
        "composition": COMPOSITION,
        "data_dependent_note": DATA_DEPENDENT_NOTE,
        "diagnostics_note": DIAGNOSTICS_NOTE,
    }


def privacy_statement(patches: bool) -> str:
    """What a run's epsilon covers: one label always; a whole private example only on pixels.

    With ``features=patches`` the patch dictionary reads every training image, so replacing one
    private image changes every teacher's features and the queries: only the label is covered.
    """
    if patches:
        return f"{LABEL_STATEMENT} {NO_WHOLE_EXAMPLE} {ADD_REMOVE} {PATCH_FEATURES}"
    return PRIVACY_STATEMENT


def student_sentence(details: dict) -> str:
    """How much the public part's unlabelled images added to the student, in a few sentences."""
    return _features_sentence(details) + _pool_sentence(details)


def _features_sentence(details: dict) -> str:
    """What ``features=patches`` took from the unlabelled images, or nothing on pixels."""
    if details.get("features") != "patches":
        return ""
    return (
        f"Teachers and student are logistic regressions on label-free patch features, learnt "
        f"from all {details['split']['train']:,} training images without a label, and the "
        f"{details['queries']} queries were spread over the public part by a k-means of them "
        "(on Fashion-MNIST at ε = 2 this lifts the student from about 0.72 on pixels to 0.80). "
    )


def _pool_sentence(details: dict) -> str:
    """How much self-training on the public part's unlabelled images added to the student."""
    training = details["self_training"]
    if training["rounds"] == 0:
        return (
            f"The student learned from the {details['answered']} answered queries alone "
            f"(test accuracy {details['student_supervised_accuracy']:.3f}); trained on their "
            f"true labels it reaches {details['student_clean_labels_accuracy']:.3f}."
        )
    added = ", ".join(f"{n:,}" for n in training["pseudo_labelled"])
    return (
        f"On the {details['answered']} answered queries alone the student reaches "
        f"{details['student_supervised_accuracy']:.3f}; self-trained on the public part's other "
        f"{training['pool']:,} images, unlabelled ({training['rounds']} rounds adding {added} "
        f"pseudo-labels at confidence {training['confidence']:g}), "
        f"{details['student_test_curve'][-1]:.3f}. On the true labels of the same queries, "
        f"alone: {details['student_clean_labels_accuracy']:.3f}. The pool's labels are never read."
    )


def _released_draws(aggregator: str, secure: bool) -> list[str]:
    draws = ["vote-count noise"]
    if aggregator == "confident-gnmax":
        draws.insert(0, "threshold-check noise")
    return draws + (["argmax tie-breaks"] if secure else [])


#: Dataset-size-aware defaults: on the 60k splits the ensemble of PATE 2018 (Papernot et al.,
#: arXiv 1802.08908: 250 teachers on MNIST, a few hundred answered queries); the small sets keep
#: the common defaults, whose shards would otherwise hold a handful of examples. On Fashion-MNIST
#: the patch features win (ε = 2, seeds 0-2: student 0.805 mean against 0.72 on pixels).
_RECIPES: dict[str, dict[str, Scalar]] = {
    "fashion-mnist": {"teachers": 250, "queries": 300, "features": "patches"},
    "mnist": {"teachers": 250, "queries": 300},
}


#: The recipe's one choice made on private labels; the ensemble's size is the paper's.
PATE_TUNING = (
    Tuning(
        "fashion-mnist",
        {"features": "patches"},
        "the student's test accuracy over seeds 0-2 at ε 2, patches against pixels",
    ),
)


def pate_recipe(dataset: str) -> dict[str, Scalar]:
    """PATE's per-dataset defaults for ``dataset`` (empty: the settings' own defaults)."""
    return dict(_RECIPES.get(dataset, {}))


SPEC = MechanismSpec(
    id="pate",
    title="PATE",
    summary="teachers on disjoint shards vote; noisy-max (LNMax/GNMax/Confident-GNMax) labels "
    "public data for a student",
    privacy_unit="label",
    task="classification",
    settings={
        # Teachers and the student train on small sets (a shard, a few hundred queries), where
        # batches of 128 would leave only a step or two per epoch.
        "batch_size": Setting(
            32, "training batch size (teachers and student)", minimum=1, maximum=65536
        ),
        "aggregator": Setting("gnmax", "noisy-max aggregator of the votes", AGGREGATORS),
        "teachers": Setting(
            50, "teachers, each trained on its own disjoint private shard", minimum=5, maximum=250
        ),
        "queries": Setting(
            500,
            "public examples the teachers label for the student; at most the public part "
            f"(a sixth of the training split, up to {PUBLIC_MAX}), larger values use all of it",
            minimum=1,
            maximum=PUBLIC_MAX,
        ),
        "teacher_model": Setting(
            "mlp",
            "model of every teacher (on a shard of a few hundred examples the MLP learns faster "
            "than the CNN and costs half as much)",
            COMMON_SETTINGS["model"].choices,
        ),
        "teacher_epochs": Setting(
            20,
            f"training epochs of each teacher (raised to reach {MIN_STEPS} optimiser steps on "
            "small shards; the student likewise gets at least that many)",
            minimum=1,
            maximum=1000,
        ),
        "delta": Setting(
            1e-5, "delta of the (epsilon, delta) guarantee", minimum=1e-12, maximum=1e-2
        ),
        "threshold": Setting(
            0.7,
            "confident-gnmax: share of the teachers the noisy top vote must reach (T / teachers)",
            minimum=0.0,
            maximum=1.0,
        ),
        "threshold_noise_ratio": Setting(
            3.0,
            "confident-gnmax: noise of the threshold check as a multiple of the answer noise "
            "(sigma1 / sigma2)",
            minimum=0.1,
            maximum=100.0,
        ),
        "self_training_rounds": Setting(
            2,
            "rounds in which the student pseudo-labels the public part's unlabelled images "
            "and retrains on its confident predictions (0: the answered queries only)",
            minimum=0,
            maximum=5,
        ),
        "pseudo_label_confidence": Setting(
            0.9,
            "smallest softmax probability of the student that makes a pseudo-label",
            minimum=0.0,
            maximum=1.0,
        ),
        "features": Setting(
            "pixels",
            "what teachers and student learn on: pixels (teacher_model and the run's model) or "
            "patches: label-free features of a patch dictionary learnt from all the images, "
            "logistic teachers and student, and queries spread over the public part by a k-means "
            "of the features",
            ("pixels", "patches"),
        ),
        "noise": NOISE_SETTING,
    },
    runner=run_pate,
    recipe=pate_recipe,
    tuned=PATE_TUNING,
)
