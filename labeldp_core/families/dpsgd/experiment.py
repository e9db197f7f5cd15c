"""DP-SGD baseline: train on the true labels with DP-SGD, calibrated to (epsilon, delta).

Unlike the label-DP mechanisms, DP-SGD protects whole examples (image and label together) under
add/remove neighbours, and pays for it with noise on every gradient step. The runner picks the
noise multiplier at which the chosen accountant's epsilon just meets the target for this many
steps, trains, and reports what the accountant computes for the steps actually taken.

With ``imbalance`` above 1 it trains on the imbalanced private set of the DP prototypes
(:mod:`labeldp_core.engine.blocks.private_set`) at their default public share: the same seed gives
the same examples, so the two are compared on the same class counts. The public part is not used,
and the epsilon covers that subsample only (``details["guarantee_scope"]``).

``noise=float`` draws the Poisson batches and the noise from torch generators seeded by the seed
(replayable from it, a teaching run); ``noise=secure`` from generators whose state comes from
os.urandom. The samplers are floating point in both (:mod:`labeldp_core.training.dpsgd`).
"""

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from labeldp_core import training
from labeldp_core.accounting.dpsgd import (
    ACCOUNTANTS,
    CALIBRATION_RTOL,
    calibrate_noise_multiplier,
    check_training_schedule,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampling_schedule,
)
from labeldp_core.data import Dataset, load_dataset, training_size
from labeldp_core.data.tables import is_table, table_info
from labeldp_core.engine.blocks.poisson_batch import small_set_batch
from labeldp_core.engine.blocks.private_set import (
    PUBLIC_FRACTION,
    SUBSAMPLE_DRAW,
    imbalanced_private_set,
)
from labeldp_core.engine.blocks.release_noise import (
    SAMPLER_NOISE_SETTING,
    draw_sources,
    sampler_details,
    sampler_source,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import within
from labeldp_core.engine.public_encoder import public_private_indices
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig, Scalar, Setting
from labeldp_core.errors import InvalidInputError
from labeldp_core.training import TrainSettings

if TYPE_CHECKING:  # importing Opacus costs seconds; the runner imports it when it trains
    from labeldp_core.training.dpsgd import DPSGDOutcome, DPSGDSettings

__all__ = [
    "REFERENCE_NOISE_MULTIPLIERS",
    "SPEC",
    "SUBSAMPLE_SCOPE",
    "TrainingSet",
    "budget_outlook",
    "delta_warning",
    "dpsgd_recipe",
    "epsilon_checkpoints",
    "private_model",
    "run_dpsgd",
    "training_set",
    "validate_dpsgd",
]

NEIGHBOURS = "add/remove one training example (its image and label together)"
#: Epochs at which the run's epsilon is reported by both accountants (PRV costs ~0.1-1 s each).
_CHECKPOINTS = 8
#: Fixed noise levels drawn next to a run's own in the budget outlook.
REFERENCE_NOISE_MULTIPLIERS: tuple[float, ...] = (0.7, 1.0, 1.5, 2.5)
#: What the epsilon of a run at ``imbalance`` above 1 covers.
SUBSAMPLE_SCOPE = (
    "the imbalanced private set only: DP-SGD trains on a subsample of the training split (outside "
    "the DP prototypes' public part) whose class sizes were chosen from the true labels (without "
    "privacy), so epsilon covers adding or removing an example of that subsample, not of the "
    "whole training split"
)
#: What the epsilon of a run at ``imbalance`` 1 covers.
_WHOLE_SPLIT = "the whole training split"
#: The generators of DP-SGD's private draws, and the samplers that draw from them.
_GENERATORS = "pair of torch generators (Poisson batches, Gaussian noise)"
_SAMPLERS = "torch's uniform draws for the Poisson batches, its Gaussian sampler for the noise"
#: Draws that stay seeded in every mode, and why the guarantee does not need them secret.
_SEEDED_DRAWS = {
    "model initialisation and dropout": "torch's global generator, seeded by the run's seed: "
    "reads no data, and each noisy step's guarantee holds for any initial weights and dropout "
    "masks",
}
_SUBSAMPLE_DRAWS = {
    "public/private split": "a seeded permutation of the training indices: reads no label",
    "imbalanced subsample": SUBSAMPLE_DRAW,
}


@dataclass(frozen=True)
class TrainingSet:
    """The training examples DP-SGD trains on (``indices`` None: all) and where they come from."""

    indices: np.ndarray | None
    description: str
    #: ``order[r]`` is the class at rank r of the imbalance (rank 0 the largest); None if balanced.
    class_order: list[int] | None = None

    def select(self, values: np.ndarray) -> np.ndarray:
        """The rows of ``values`` (indexed like the training split) in this set."""
        return values if self.indices is None else values[self.indices]


def training_set(config: RunConfig, data: Dataset) -> TrainingSet:
    """The whole training split at ``imbalance`` 1, else the DP prototypes' imbalanced private set.

    The private set is the one DPPL draws with the same seed, ratio and its default public share,
    so the class counts (and the examples) are the same as a DPPL run's.
    """
    ratio = config.setting("imbalance")
    if ratio == 1:
        return TrainingSet(None, f"the whole training split ({data.n_train:,} images)")
    _, pool = public_private_indices(data.n_train, PUBLIC_FRACTION, config.seed)
    kept, subset = imbalanced_private_set(pool, data.y_train, data.num_classes, ratio, config.seed)
    return TrainingSet(
        kept,
        f"the DP prototypes' private set at imbalance {ratio:g} (seed {config.seed}): {len(kept):,}"
        f" of the {len(pool):,} training images outside their {PUBLIC_FRACTION:.0%} public part "
        "(which DP-SGD does not use)",
        subset.order.tolist(),
    )


#: Where the defaults come from (Papernot et al. 2021, arXiv 2007.14191; Tramer & Boneh 2021,
#: arXiv 2011.11660): tanh CNN, SGD with momentum 0.9, clipping norm 0.1, large expected batches
#: and tens of epochs, noise calibrated to the epsilon asked. Hyper-parameters were not searched
#: on the private data: a search on it spends privacy that no accountant here records.
RECIPE_SOURCE = (
    "DP-SGD recipe of Papernot et al. 2021 (tempered sigmoids) and Tramer & Boneh 2021: tanh "
    "CNN, SGD with momentum 0.9, clipping norm 0.1, expected batch 2,048 at learning rate 4 for "
    "40 epochs on the 60k splits; smaller sets take a batch of about n / 6 with the learning "
    "rate scaled in proportion (Goyal et al. 2017); noise calibrated to the epsilon asked"
)
#: The published recipe's batch and learning rate on the 60k splits.
_PUBLISHED_BATCH, _PUBLISHED_LEARNING_RATE, _PUBLISHED_EPOCHS = 2048, 4.0, 40
#: Expected batch per dataset: as published on the 60k splits, about n / 6 on the small sets
#: (a batch of 2,048 would be the whole set, one noisy step per epoch).
_BATCHES = {"fashion-mnist": 2048, "mnist": 2048, "mnist-5k": 512, "digits": 256}


def dpsgd_recipe(dataset: str) -> dict[str, Scalar]:
    """The recipe's per-dataset defaults (settings and ``epochs``) for ``dataset``.

    The learning rate follows the batch by the linear scaling rule, from the published 4 at
    2,048; nothing here was tuned on a run's private data.

    >>> dpsgd_recipe("digits")
    {'batch': 256, 'dp_learning_rate': 0.5, 'epochs': 40}
    """
    if is_table(dataset):
        batch = small_set_batch(table_info(dataset).n_train, _PUBLISHED_BATCH)
    elif dataset in _BATCHES:
        batch = _BATCHES[dataset]
    else:
        return {}
    rate = _PUBLISHED_LEARNING_RATE * batch / _PUBLISHED_BATCH
    return {"batch": batch, "dp_learning_rate": rate, "epochs": _PUBLISHED_EPOCHS}


def private_model(model: str, activation: str) -> str:
    """The zoo name of ``model`` with ``activation``: tanh swaps in the tempered-sigmoid twin."""
    return f"{model}-tanh" if activation == "tanh" and model in ("cnn", "mlp") else model


def delta_warning(delta: float, n_train: int) -> str | None:
    """A one-line warning when delta is not below 1/n, else None.

    >>> delta_warning(1e-5, 1000) is None
    True
    >>> delta_warning(1e-3, 1000).split(":")[0]
    'delta = 0.001 >= 1/1,000 (one over the training examples)'
    """
    if delta * n_train < 1:
        return None
    return (
        f"delta = {delta:g} >= 1/{n_train:,} (one over the training examples): publishing each "
        f"example in the clear with probability delta is (0, delta)-DP and would publish about "
        f"{delta * n_train:.3g} of them, so this guarantee is weak; use a delta well below "
        f"{1 / n_train:.1g}"
    )


def validate_dpsgd(config: RunConfig) -> None:
    """Check clip, delta and that the expected batch fits in the training set, before training."""
    if config.setting("imbalance") == 1:  # the whole split: its size is known without a load
        n_train = training_size(config.dataset)
    else:
        data = load_dataset(config.dataset)
        n_train = len(training_set(config, data).select(data.y_train))
    check_training_schedule(
        config.setting("clip"),
        config.setting("delta"),
        n_train,
        config.setting("batch"),
        int(config.epochs or 1),
    )


def epsilon_checkpoints(epochs: int, count: int = _CHECKPOINTS) -> list[int]:
    """Up to ``count`` epochs spread evenly over 1..epochs, always including the last.

    >>> epsilon_checkpoints(40, 4), epsilon_checkpoints(5, 8), epsilon_checkpoints(1, 8)
    ([10, 20, 30, 40], [1, 2, 3, 4, 5], [1])
    """
    points = min(count, epochs)
    return sorted({max(1, round(epochs * (i + 1) / points)) for i in range(points)})


def budget_outlook(
    sigma: float, sample_rate: float, steps_per_epoch: int, epochs: int, delta: float
) -> dict[str, list]:
    """RDP epsilon after each epoch of a run trained on to twice its length (at least 10 epochs).

    One curve for the run's noise multiplier ``sigma`` (rounded to 4 digits) and one for each
    reference level not within 10% of it, so that a reader sees what training on would spend
    and what less or more noise would have cost. Returns JSON-ready lists: ``epochs``,
    ``noise_multipliers`` and ``epsilons`` (one list per noise multiplier).

    >>> outlook = budget_outlook(1.0, 256 / 60000, 235, 2, 1e-5)
    >>> outlook["epochs"][-1], outlook["noise_multipliers"]
    (10, [0.7, 1.0, 1.5, 2.5])
    """
    reference = {s for s in REFERENCE_NOISE_MULTIPLIERS if abs(s / sigma - 1) > 0.1}
    sigmas = sorted(reference | {round(sigma, 4)})
    horizon = list(range(1, max(2 * epochs, 10) + 1))
    steps = [steps_per_epoch * epoch for epoch in horizon]
    return {
        "epochs": horizon,
        "noise_multipliers": sigmas,
        "epsilons": [dpsgd_epsilon_curve(s, sample_rate, steps, delta) for s in sigmas],
    }


def _epsilon_or_none(
    sigma: float, q: float, steps: int, delta: float, accountant: str
) -> float | None:
    try:
        return dpsgd_epsilon(sigma, q, steps, delta, accountant)
    except InvalidInputError:  # PRV cannot always reach tiny deltas; the other figure stands
        return None


def _private_settings(config: RunConfig, ctx: RunContext) -> tuple[TrainSettings, "DPSGDSettings"]:
    """The model's training settings and the DP-SGD settings (noise multiplier still 1)."""
    from labeldp_core.training.dpsgd import DPSGDSettings

    settings = replace(
        ctx.train_settings,
        batch_size=config.setting("batch"),
        learning_rate=config.setting("dp_learning_rate"),
        model=private_model(config.setting("model"), config.setting("activation")),
    )
    privacy = DPSGDSettings(
        noise_multiplier=1.0,
        clip=config.setting("clip"),
        optimizer=config.setting("optimizer"),
        momentum=config.setting("momentum"),
    )
    return settings, privacy


def _subset_baseline(
    config: RunConfig, ctx: RunContext, indices: np.ndarray | None
) -> float | None:
    """The clean baseline on an imbalanced run's own examples (None: the engine's is right).

    The engine's clean baseline trains on the whole split; an imbalanced run's reference must
    see the same (imbalanced) examples.
    """
    if indices is None:
        return None
    ctx.progress(0.9, "clean baseline on the same imbalanced examples")
    return ctx.subset_baseline_score(
        indices, {"imbalance": config.setting("imbalance"), "public": PUBLIC_FRACTION}
    )


def _epsilon_by_epoch(
    sigma: float, q: float, steps_per_epoch: int, epochs: int, delta: float
) -> dict[str, Any]:
    """Epsilon after each checkpoint epoch by every accountant (None where one cannot tell)."""
    checkpoints = epsilon_checkpoints(epochs)
    by_accountant = {
        name: [
            _epsilon_or_none(sigma, q, epoch * steps_per_epoch, delta, name)
            for epoch in checkpoints
        ]
        for name in ACCOUNTANTS
    }
    return {"epochs": checkpoints, **by_accountant}


def run_dpsgd(config: RunConfig, ctx: RunContext) -> Outcome:
    """Calibrate sigma, train with DP-SGD, and account for the steps actually taken."""
    # Imported here: Opacus costs ~3 s of CPU to import, which listing mechanisms should not pay.
    from labeldp_core.training.dpsgd import train_dpsgd_classifier

    data = ctx.dataset
    train = training_set(config, data)
    labels = train.select(data.y_train)
    delta, accountant = config.setting("delta"), config.setting("accountant")
    settings, privacy = _private_settings(config, ctx)
    q, steps = sampling_schedule(len(labels), settings.batch_size, settings.epochs)
    ctx.progress(0.0, f"calibrating the noise multiplier ({accountant} accountant)")
    sigma = calibrate_noise_multiplier(config.epsilon, delta, q, steps, accountant)
    privacy = replace(privacy, noise_multiplier=sigma)
    report = within(ctx.progress, 0.05, 0.85)

    def on_epoch(done: int, total: int) -> None:
        report(done / total, f"DP-SGD with noise multiplier {sigma:.3g}: epoch {done}/{total}")

    trained = train_dpsgd_classifier(
        train.select(data.x_train),
        labels,
        data.x_test,
        data.y_test,
        data.num_classes,
        settings,
        privacy,
        config.seed,
        on_epoch,
        noise=config.setting("noise"),
    )
    # The released model: the label-inference figures and the canary audit read it.
    ctx.note_attack_model(trained.model)
    baseline = _subset_baseline(config, ctx, train.indices)
    ctx.progress(0.95, "epsilon by epoch with both accountants")
    steps_per_epoch = trained.steps // settings.epochs
    by_epoch = _epsilon_by_epoch(
        sigma, trained.sample_rate, steps_per_epoch, settings.epochs, delta
    )
    return Outcome(
        epsilon_spent=dpsgd_epsilon(sigma, trained.sample_rate, trained.steps, delta, accountant),
        delta=delta,
        test_score=trained.final,
        baseline_score=baseline,
        n_train=len(labels),
        details=_details(config, ctx, train, trained, settings, privacy)
        | {
            "epsilon_rdp": by_epoch["rdp"][-1],
            "epsilon_prv": by_epoch["prv"][-1],
            "epsilon_by_epoch": by_epoch,
            "budget_outlook": budget_outlook(
                sigma, trained.sample_rate, steps_per_epoch, settings.epochs, delta
            ),
            **_label_reading(sigma, trained.sample_rate, trained.steps, delta),
        },
        diagnostics=("details.class_counts", "details.mean_batch", "details.empty_steps"),
    )


def _label_reading(sigma: float, q: float, steps: int, delta: float) -> dict[str, Any]:
    """The run's epsilon for one changed label, read tightly: replace-one, at the run's delta.

    A changed label keeps its example's inclusion coin, so the replace-one pair of the
    Poisson-subsampled Gaussian covers it (the LabelDP-Pro family README's argument); the group
    reading of the example-level epsilon, (2 eps, (1 + e^eps) delta), is looser.
    """
    return {
        "label_level_epsilon": dpsgd_epsilon(sigma, q, steps, delta, "pld-replace-one"),
        "label_level_delta": delta,
        "label_level_accountant": "pld-replace-one",
    }


def _details(
    config: RunConfig,
    ctx: RunContext,
    train: TrainingSet,
    trained: "DPSGDOutcome",
    settings: TrainSettings,
    privacy: "DPSGDSettings",
) -> dict[str, Any]:
    """What was trained on, how, and what the steps were; the test curve and class accuracies."""
    data, labels = ctx.dataset, train.select(ctx.dataset.y_train)
    predicted = training.predict_proba(trained.model, data.x_test, settings).argmax(axis=1)
    correct = predicted == data.y_test
    warning = delta_warning(config.setting("delta"), len(labels))
    accountant = config.setting("accountant")
    return {
        "training_set": train.description,
        "class_counts": np.bincount(labels, minlength=data.num_classes).tolist(),
        "class_order": train.class_order,
        "per_class_accuracy": [
            float(correct[data.y_test == c].mean()) for c in range(data.num_classes)
        ],
        "warnings": [] if warning is None else [warning],
        "noise_multiplier": privacy.noise_multiplier,
        "sample_rate": trained.sample_rate,
        "steps": trained.steps,
        "expected_batch": settings.batch_size,
        "mean_batch": trained.mean_batch,
        "empty_steps": trained.empty_steps,
        "clip": privacy.clip,
        "model_trained": settings.model,
        "optimizer": f"{privacy.optimizer}, learning rate {settings.learning_rate:g}"
        + (f", momentum {privacy.momentum:g}" if privacy.optimizer == "sgd" else ""),
        "recipe": RECIPE_SOURCE,
        "accountant": accountant,
        "calibration_rtol": CALIBRATION_RTOL,
        "test_curve": list(trained.test_curve),
        "neighbouring_relation": NEIGHBOURS,
        "guarantee_scope": SUBSAMPLE_SCOPE if train.indices is not None else _WHOLE_SPLIT,
        **_draw_details(config.setting("noise"), train),
        "composition": (
            f"{trained.steps} Poisson-subsampled Gaussian steps composed by the {accountant} "
            "accountant; the model and its test curve are post-processing"
        ),
    }


def _draw_details(noise: str, train: TrainingSet) -> dict[str, Any]:
    """The noise mode's entries and where every draw of the run came from (``random_draws``)."""
    seeded = _SEEDED_DRAWS | ({} if train.indices is None else _SUBSAMPLE_DRAWS)
    released = ["Poisson batch sampling", "gradient noise"]
    source = sampler_source(noise, _GENERATORS)
    return sampler_details(noise, _SAMPLERS, _GENERATORS) | {
        "random_draws": draw_sources(noise, released, seeded, source),
    }


SPEC = MechanismSpec(
    id="dpsgd",
    title="DP-SGD baseline",
    summary="DP-SGD (Opacus): clip each example's gradient, add Gaussian noise; protects "
    "whole examples, not only labels",
    privacy_unit="example",
    task="classification",
    settings={
        "batch": Setting(
            2048,
            "expected batch size of DP-SGD's Poisson sampling (batch_size sets only the "
            "clean baseline's batch)",
            minimum=1,
            maximum=65536,
        ),
        "clip": Setting(0.1, "bound C on each example's gradient norm, > 0"),
        "delta": Setting(
            1e-5,
            "delta of the (epsilon, delta) guarantee, in (0, 1), well below 1/n (a delta "
            "of 1/n or more is run, with a warning)",
        ),
        "imbalance": Setting(
            1.0,
            "1: the whole training split; above 1: the DP prototypes' private set at this "
            "largest / smallest class ratio (same seed, same examples)",
            minimum=1.0,
            maximum=1000.0,
        ),
        "accountant": Setting("rdp", "privacy accountant", choices=tuple(ACCOUNTANTS)),
        "activation": Setting(
            "tanh",
            "activation of the private model: tanh (tempered sigmoid, Papernot et al. "
            "2021) or relu",
            ("tanh", "relu"),
        ),
        "optimizer": Setting("sgd", "DP optimiser: sgd (with momentum) or adam", ("sgd", "adam")),
        "momentum": Setting(0.9, "momentum of DP-SGD's SGD", minimum=0.0, maximum=0.99),
        "noise": SAMPLER_NOISE_SETTING,
        "dp_learning_rate": Setting(
            4.0,
            "learning rate of the DP optimiser (learning_rate sets the clean baseline's)",
            minimum=1e-6,
            maximum=100.0,
        ),
    },
    runner=run_dpsgd,
    check=validate_dpsgd,
    recipe=dpsgd_recipe,
)
