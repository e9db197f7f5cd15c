"""DP-SGD baseline: train on the true labels with DP-SGD, calibrated to (epsilon, delta).

Unlike the label-DP mechanisms, DP-SGD protects whole examples (image and label together) under
add/remove neighbours, and pays for it with noise on every gradient step. The runner picks the
noise multiplier at which the chosen accountant's epsilon just meets the target for this many
steps, trains, and reports what the accountant computes for the steps actually taken.
"""

from dataclasses import replace

from labeldp_core.accounting.dpsgd import (
    ACCOUNTANTS,
    CALIBRATION_RTOL,
    calibrate_noise_multiplier,
    check_clip,
    check_delta,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampling_schedule,
)
from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments.context import RunContext
from labeldp_core.experiments.progress import within
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig, Setting

__all__ = [
    "REFERENCE_NOISE_MULTIPLIERS",
    "SPEC",
    "budget_outlook",
    "epsilon_checkpoints",
    "run_dpsgd",
    "validate_dpsgd",
]

NEIGHBOURS = "add/remove one training example (its image and label together)"
#: Epochs at which the run's epsilon is reported by both accountants (PRV costs ~0.1-1 s each).
_CHECKPOINTS = 8
#: Fixed noise levels drawn next to a run's own in the budget outlook.
REFERENCE_NOISE_MULTIPLIERS: tuple[float, ...] = (0.7, 1.0, 1.5, 2.5)


def validate_dpsgd(config: RunConfig) -> None:
    """Check clip, delta and that the expected batch fits in the training set, before training."""
    check_clip(config.setting("clip"))
    check_delta(config.setting("delta"))
    n_train = load_dataset(config.dataset).n_train
    sampling_schedule(n_train, config.setting("batch"), int(config.epochs or 1))


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


def run_dpsgd(config: RunConfig, ctx: RunContext) -> Outcome:
    """Calibrate sigma, train with DP-SGD, and account for the steps actually taken."""
    # Imported here: Opacus costs ~3 s of CPU to import, which listing mechanisms should not pay.
    from labeldp_core.training.dpsgd import DPSGDSettings, train_dpsgd_classifier

    data = ctx.dataset
    delta, clip, accountant = (config.setting(k) for k in ("delta", "clip", "accountant"))
    settings = replace(ctx.train_settings, batch_size=config.setting("batch"))
    q, steps = sampling_schedule(data.n_train, settings.batch_size, settings.epochs)
    ctx.progress(0.0, f"calibrating the noise multiplier ({accountant} accountant)")
    sigma = calibrate_noise_multiplier(config.epsilon, delta, q, steps, accountant)
    report = within(ctx.progress, 0.05, 0.9)

    def on_epoch(done: int, total: int) -> None:
        report(done / total, f"DP-SGD with noise multiplier {sigma:.3g}: epoch {done}/{total}")

    trained = train_dpsgd_classifier(
        data.x_train, data.y_train, data.x_test, data.y_test, data.num_classes,
        settings, DPSGDSettings(noise_multiplier=sigma, clip=clip), config.seed, on_epoch,
    )  # fmt: skip
    spent = dpsgd_epsilon(sigma, trained.sample_rate, trained.steps, delta, accountant)

    ctx.progress(0.9, "epsilon by epoch with both accountants")
    steps_per_epoch = trained.steps // settings.epochs
    checkpoints = epsilon_checkpoints(settings.epochs)
    by_accountant = {
        name: [
            _epsilon_or_none(sigma, trained.sample_rate, epoch * steps_per_epoch, delta, name)
            for epoch in checkpoints
        ]
        for name in ACCOUNTANTS
    }
    return Outcome(
        epsilon_spent=spent,
        delta=delta,
        test_score=trained.final,
        n_train=data.n_train,
        details={
            "noise_multiplier": sigma,
            "sample_rate": trained.sample_rate,
            "steps": trained.steps,
            "expected_batch": settings.batch_size,
            "mean_batch": trained.mean_batch,
            "empty_steps": trained.empty_steps,
            "clip": clip,
            "accountant": accountant,
            "calibration_rtol": CALIBRATION_RTOL,
            "epsilon_rdp": by_accountant["rdp"][-1],
            "epsilon_prv": by_accountant["prv"][-1],
            "epsilon_by_epoch": {"epochs": checkpoints, **by_accountant},
            "budget_outlook": budget_outlook(
                sigma, trained.sample_rate, steps_per_epoch, settings.epochs, delta
            ),
            "test_curve": list(trained.test_curve),
            "neighbouring_relation": NEIGHBOURS,
            "composition": (
                f"{trained.steps} Poisson-subsampled Gaussian steps composed by the {accountant} "
                "accountant; the model and its test curve are post-processing"
            ),
        },
    )


SPEC = MechanismSpec(
    id="dpsgd",
    title="DP-SGD baseline",
    summary="DP-SGD (Opacus): clip each example's gradient, add Gaussian noise; protects "
    "whole examples, not only labels",
    privacy_unit="example",
    task="classification",
    settings={
        "batch": Setting(
            256, "expected batch size of DP-SGD's Poisson sampling (batch_size sets only the "
            "clean baseline's batch)", minimum=1, maximum=65536,
        ),
        "clip": Setting(1.0, "bound C on each example's gradient norm, > 0"),
        "delta": Setting(1e-5, "delta of the (epsilon, delta) guarantee, in (0, 1), below 1/n"),
        "accountant": Setting("rdp", "privacy accountant", choices=tuple(ACCOUNTANTS)),
    },
    runner=run_dpsgd,
    check=validate_dpsgd,
)  # fmt: skip
