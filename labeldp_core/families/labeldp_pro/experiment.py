"""LabelDP-Pro as a runnable mechanism: calibrate the noise to the label budget, train, account.

The runner picks the noise multiplier at which DP-SGD's accountant, read for a changed label
(:mod:`labeldp_core.families.labeldp_pro.accounting`), just meets the asked epsilon for this many
steps, trains with :func:`~labeldp_core.families.labeldp_pro.trainer.train_labeldp_pro`, and
reports the label-level (epsilon, delta) the accountant computes for the steps actually taken.
"""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from labeldp_core.accounting.dpsgd import (
    REPLACE_ONE_ACCOUNTANTS,
    check_training_schedule,
    dpsgd_epsilon,
    sampling_schedule,
)
from labeldp_core.data import training_size
from labeldp_core.data.tables import is_table
from labeldp_core.engine.blocks.poisson_batch import small_set_batch
from labeldp_core.engine.blocks.release_noise import (
    SAMPLER_NOISE_SETTING,
    draw_sources,
    sampler_details,
    sampler_source,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.progress import within
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig, Scalar, Setting
from labeldp_core.engine.tuning import Tuning
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.labeldp_pro.accounting import (
    LABEL_ACCOUNTANTS,
    accounted_budget,
    calibrate_label_noise,
    label_epsilon,
)

__all__ = ["CNN_MODELS", "PAPER", "PRO_TUNING", "SPEC", "labeldp_pro_recipe", "run_labeldp_pro"]

PAPER = (
    "Ghazi, Huang, Kamath, Kumar, Manurangsi, Zhang, LabelDP-Pro: Learning with Label "
    "Differential Privacy via Projections, ICLR 2024 (OpenReview JnYaF3vv3G)"
)
NEIGHBOURS = "replace one training label (the images are public)"
#: What LabelDP-Pro trains for the model choice ``cnn`` (the sidebar's, shared by every
#: mechanism): the paper's small CNN (two 3x3 convolutions of 16 channels, dense 16), or, on
#: digits (its recipe, a tuning), multinomial logistic regression (``cnn_model``).
CNN_MODELS = ("cnn-small", "logistic")
#: Expected Poisson batch per dataset: the paper's 1,024 on its datasets (its Table 8), about
#: n / 6 on the small sets, as DP-SGD's recipe; a table takes the same rule, up to 1,024.
_PAPER_BATCH = 1024
_BATCHES = {"fashion-mnist": _PAPER_BATCH, "mnist": _PAPER_BATCH, "mnist-5k": 512, "digits": 256}
#: Per-dataset recipe values (chosen on each dataset's labels, declared in :data:`PRO_TUNING`):
#: on digits the model choice ``cnn`` trains logistic regression, since the paper's small CNN
#: stays at chance at a label epsilon of 1 there, at rate 6 for 10 epochs; on Fashion-MNIST
#: logistic regression on label-free patch features at rate 1 (the family README's tables).
_DATASET_RECIPES: dict[str, dict[str, Scalar]] = {
    "digits": {"cnn_model": "logistic", "dp_learning_rate": 6.0, "epochs": 10},
    "fashion-mnist": {"features": "patches", "cnn_model": "logistic", "dp_learning_rate": 1.0},
}
#: Epochs: 5 on the paper's datasets (its Table 8 searched 2, 5 and 10), 40 on the other small
#: sets (DP-SGD's recipe), 10 on digits (its own recipe, above).
_PAPER_EPOCHS = {"fashion-mnist": 5, "mnist": 5}
_GENERATORS = "pair of torch generators (Poisson batches, Gaussian noise)"
_SAMPLERS = "torch's uniform draws for the Poisson batches, its Gaussian sampler for the noise"
_SEEDED_DRAWS = {
    "model initialisation": "torch's global generator, seeded by the run's seed: reads no data",
    "projection batch I_P": "a torch generator seeded by the run's seed: draws indices "
    "independently of the Poisson batch and reads no label",
}


#: The denoiser's rules as chosen on Fashion-MNIST's training labels (the family README's runs).
PRO_TUNING = (
    Tuning(
        "fashion-mnist",
        {"projection_start": "predicted"},
        "LabelDP-Pro's test accuracy at ε 0.1 and 1, seed 0, softmax against uniform start",
    ),
    Tuning(
        "fashion-mnist",
        {"smoothing_rule": "noise"},
        "LabelDP-Pro's test accuracy at ε 0.1, 0.5 and 1, seed 0, lambda from the noise "
        "against fixed lambdas 0 to 1",
    ),
    Tuning(
        "fashion-mnist",
        {"rate_rule": "smoothing", "dp_learning_rate": 12.0},
        "LabelDP-Pro's test accuracy at ε 0.1, 0.5 and 1, seed 0, SGD rates 2 to 20",
    ),
    Tuning(
        "digits",
        {"rate_rule": "smoothing", "dp_learning_rate": 12.0},
        "LabelDP-Pro's test accuracy at ε 8, seed 0, rate 12 against 0.5",
    ),
    Tuning(
        "fashion-mnist",
        {"features": "patches", "cnn_model": "logistic", "dp_learning_rate": 1.0},
        "LabelDP-Pro's test accuracy at ε 0.1, seed 0: logistic regression on 128, 64 or 1,024 "
        "patch features at SGD rates 0.5 to 12, against the small CNN on pixels",
    ),
    Tuning(
        "digits",
        {"cnn_model": "logistic", "dp_learning_rate": 6.0},
        "LabelDP-Pro's test accuracy at ε 1 and 8, seeds 0-2: logistic regression against the "
        "paper's small CNN (at chance at ε 1), rate 6 against 12, 10 epochs against 40",
    ),
)


def labeldp_pro_recipe(dataset: str) -> dict[str, Scalar]:
    """Per-dataset defaults: the expected batch, the epochs, and what the model choice trains.

    The denoiser's rules and the rate are the same on every dataset (the settings' defaults:
    the projection starts at the model's softmax, lambda and the rate follow the noise, rate 12),
    since they read only public quantities (sigma, d, B, the clip); see the family README for
    the datasets whose labels picked them. On digits the model choice ``cnn`` trains logistic
    regression at rate 6 for 10 epochs; on Fashion-MNIST logistic regression on 128 label-free
    patch features at rate 1 (choices made on each dataset's labels, declared in
    :data:`PRO_TUNING`). A table of the user's gets its batch from its size alone
    (:func:`~labeldp_core.engine.blocks.poisson_batch.small_set_batch`: at most its rows) and the
    table's epochs.

    >>> labeldp_pro_recipe("digits")
    {'batch': 256, 'epochs': 10, 'cnn_model': 'logistic', 'dp_learning_rate': 6.0}
    >>> labeldp_pro_recipe("fashion-mnist")["features"]
    'patches'
    """
    if is_table(dataset):
        return {"batch": small_set_batch(training_size(dataset), _PAPER_BATCH)}
    if dataset not in _BATCHES:
        return {}
    recipe = {"batch": _BATCHES[dataset], "epochs": _PAPER_EPOCHS.get(dataset, 40)}
    return recipe | _DATASET_RECIPES.get(dataset, {})


def trained_model(model: str, cnn_model: str) -> str:
    """The zoo model LabelDP-Pro trains for the model setting ``model``: ``cnn`` is ``cnn_model``.

    >>> trained_model("cnn", "cnn-small"), trained_model("mlp", "logistic")
    ('cnn-small', 'mlp')
    """
    return cnn_model if model == "cnn" else model


def trained_model_words(trained: str, choice: str, dataset: str) -> str:
    """What a run trained, said beside the model choice it was asked for (``trained`` if equal).

    >>> trained_model_words("logistic", "cnn", "digits")
    'logistic (the model choice cnn, the digits recipe)'
    >>> trained_model_words("cnn-small", "cnn", "mnist")
    "cnn-small (the model choice cnn: the paper's small CNN)"
    """
    if trained == choice:
        return trained
    if _DATASET_RECIPES.get(dataset, {}).get("cnn_model") == trained:
        return f"{trained} (the model choice {choice}, the {dataset} recipe)"
    return f"{trained} (the model choice {choice}: the paper's small CNN)"


def validate_labeldp_pro(config: RunConfig) -> None:
    """Check clip, delta, the batch against the training set and the features, before training."""
    if config.setting("features") == "patches":
        _check_patch_features(config)
    check_training_schedule(
        config.setting("clip"),
        config.setting("delta"),
        training_size(config.dataset),
        config.setting("batch"),
        int(config.epochs or 1),
    )


def _check_patch_features(config: RunConfig) -> None:
    """Refuse ``features=patches`` on a table (no images) or for the small CNN (it reads images)."""
    if is_table(config.dataset):
        raise InvalidInputError(
            f"features=patches encodes images, and {config.dataset} is a table of features; "
            "use --set features=pixels"
        )
    if trained_model(config.setting("model"), config.setting("cnn_model")) == "cnn-small":
        raise InvalidInputError(
            "features=patches gives the model a vector of features, which the small CNN "
            "(cnn_model=cnn-small) cannot read; use --set cnn_model=logistic, or "
            "--set features=pixels"
        )


def features_phrase(features: str, dims: int) -> str:
    """What the model read, as the run's details say it.

    >>> features_phrase("patches", 128)[:40]
    'label-free patch features: 128 whitened '
    """
    if features == "pixels":
        return "the images' pixels"
    return (
        f"label-free patch features: {dims} whitened principal components of the pooled codes "
        "of a k-means dictionary of whitened 5x5 patches (Coates and Ng 2011), learnt from the "
        "training images alone (no label read)"
    )


def run_labeldp_pro(config: RunConfig, ctx: RunContext) -> Outcome:
    """Calibrate sigma for the label budget, train with LabelDP-Pro, account for the steps taken."""
    # Imported here: torch costs seconds, which listing mechanisms should not pay.
    from labeldp_core.families.labeldp_pro.trainer import train_labeldp_pro

    data, delta, accountant = ctx.dataset, config.setting("delta"), config.setting("accountant")
    settings = replace(
        ctx.train_settings,
        model=trained_model(ctx.train_settings.model, config.setting("cnn_model")),
        batch_size=config.setting("batch"),
        learning_rate=config.setting("dp_learning_rate"),
    )
    q, steps = sampling_schedule(data.n_train, settings.batch_size, settings.epochs)
    ctx.progress(0.0, f"calibrating the noise multiplier ({accountant} accountant)")
    sigma = calibrate_label_noise(config.epsilon, delta, q, steps, accountant)
    pro = _pro_settings(config, sigma)
    report = within(ctx.progress, 0.05, 0.95)

    def on_epoch(done: int, total: int) -> None:
        report(done / total, f"LabelDP-Pro, noise multiplier {sigma:.3g}: epoch {done}/{total}")

    arrays, released = _training_inputs(config, ctx)
    trained = train_labeldp_pro(
        arrays,
        data.num_classes,
        settings,
        pro,
        config.seed,
        on_epoch,
        noise=config.setting("noise"),
    )
    # The released model (images in): the label-inference figures and the canary audit read it.
    ctx.note_attack_model(released(trained.model))
    _, accounted_delta = accounted_budget(config.epsilon, delta, accountant)
    spent, spent_delta = label_epsilon(
        sigma, trained.sample_rate, trained.steps, accounted_delta, accountant
    )
    return Outcome(
        epsilon_spent=spent,
        delta=spent_delta,
        test_score=trained.final,
        n_train=data.n_train,
        details=_details(config, trained, sigma, accounted_delta, data.num_classes),
        diagnostics=("details.mean_batch", "details.empty_steps"),
    )


def _training_inputs(
    config: RunConfig, ctx: RunContext
) -> tuple[tuple[Any, Any, Any, Any], Callable[[Any], Any]]:
    """The trainer's four arrays, and what turns the trained model into one that takes images.

    ``features=pixels``: the images themselves. ``patches``: their label-free patch features
    (:mod:`labeldp_core.families.labeldp_pro.features`, cached per dataset, seed and images),
    and the released model encodes an image before its layers.
    """
    data = ctx.dataset
    if config.setting("features") == "pixels":
        return (data.x_train, data.y_train, data.x_test, data.y_test), lambda model: model
    from labeldp_core.families.labeldp_pro.features import FeatureClassifier, patch_inputs

    inputs = patch_inputs(ctx, config.setting("feature_dims"))
    shape = tuple(data.x_train.shape[1:])
    return (inputs.train, data.y_train, inputs.test, data.y_test), lambda model: FeatureClassifier(
        inputs, model, shape
    )


def _pro_settings(config: RunConfig, sigma: float) -> Any:
    """The trainer's :class:`~labeldp_core.families.labeldp_pro.trainer.ProSettings` of a run."""
    from labeldp_core.families.labeldp_pro.trainer import ProSettings

    return ProSettings(
        noise_multiplier=sigma,
        clip=config.setting("clip"),
        public_batch=config.setting("public_batch"),
        smoothing=config.setting("smoothing"),
        smooth_towards=config.setting("smooth_towards"),
        projection_steps=config.setting("projection_steps"),
        momentum=config.setting("momentum"),
        hull=config.setting("hull"),
        projection_lr=config.setting("projection_lr") or None,
        accelerated=config.setting("projection_solver") == "fista",
        projection_start=config.setting("projection_start"),
        smoothing_rule=config.setting("smoothing_rule"),
        rate_rule=config.setting("rate_rule"),
    )


def _details(
    config: RunConfig, trained: Any, sigma: float, accounted_delta: float, num_classes: int
) -> dict:
    """The noise, the sampling, both units' figures, the denoiser and the draws' sources.

    ``trained`` is the trainer's outcome, with the lambda and SGD rate its rules chose. The
    example-level figure is the DP-SGD release's add/remove epsilon (RDP under a replace-one
    run), at the delta the run accounted.
    """
    accountant, noise = config.setting("accountant"), config.setting("noise")
    add_remove = "rdp" if accountant in REPLACE_ONE_ACCOUNTANTS else accountant
    example = dpsgd_epsilon(sigma, trained.sample_rate, trained.steps, accounted_delta, add_remove)
    return {
        "model_trained": trained_model(config.setting("model"), config.setting("cnn_model")),
        "features": features_phrase(config.setting("features"), config.setting("feature_dims")),
        "noise_multiplier": sigma,
        "sample_rate": trained.sample_rate,
        "steps": trained.steps,
        "mean_batch": trained.mean_batch,
        "empty_steps": trained.empty_steps,
        "clip": config.setting("clip"),
        "accountant": accountant,
        "example_level_epsilon": example,
        "example_level_delta": accounted_delta,
        "denoiser": (
            f"{hull_phrase(config.setting('hull'), config.setting('public_batch'), num_classes)}, "
            f"{config.setting('projection_steps')} {config.setting('projection_solver')} steps "
            f"(step {_projection_step(config.setting('projection_lr'))}), smoothing "
            f"{trained.smoothing:.3g} ({config.setting('smoothing_rule')}) towards "
            f"{config.setting('smooth_towards')}, weights starting "
            f"{config.setting('projection_start')}"
        ),
        "smoothing": trained.smoothing,
        "learning_rate_used": trained.learning_rate,
        "test_curve": list(trained.test_curve),
        "neighbouring_relation": NEIGHBOURS,
        "composition": _composition(trained.steps, accountant),
        "paper": PAPER,
        **sampler_details(noise, _SAMPLERS, _GENERATORS),
        "random_draws": draw_sources(
            noise,
            ["Poisson batch sampling", "gradient noise"],
            _SEEDED_DRAWS,
            sampler_source(noise, _GENERATORS),
        ),
    }


def hull_phrase(hull: str, public_batch: int, num_classes: int) -> str:
    """The denoiser's hull as the details name it: the paper's joint one, or ours per example.

    >>> hull_phrase("joint", 100, 10).split(" of ")[1]
    'all 1,000 clipped per-class gradients'

    """
    if hull == "joint":
        return (
            "ALTCONV (the paper's hull): projection onto the convex hull of all "
            f"{public_batch * num_classes:,} clipped per-class gradients of {public_batch} "
            "label-free examples (one simplex over every weight)"
        )
    return (
        "ALTCONV with per-example hulls (not the paper's single hull): projection onto the mean "
        f"of {public_batch} label-free examples' hulls of their {num_classes} clipped per-class "
        "gradients (one simplex of class weights per example)"
    )


def _composition(steps: int, accountant: str) -> str:
    """How the run's steps were composed, in the details' words."""
    if accountant in REPLACE_ONE_ACCOUNTANTS:
        reading = (
            "accountant (replace-one: the example's inclusion coin is the same in both worlds; "
            "the 1-D pair bounds vector gradients by the family README's argument, whose 2-D "
            "step is checked numerically, not proved)"
        )
    else:
        reading = (
            "accountant (add/remove), read for a changed label by group privacy (2 eps, "
            "(1 + e^eps) delta)"
        )
    return (
        f"{steps} Poisson-subsampled Gaussian steps composed by the {accountant} {reading}; "
        "the projection is post-processing"
    )


def _projection_step(learning_rate: float) -> str:
    """The projection's step as the details name it: 1 / L, or the paper's 2 eta."""
    return f"2 x {learning_rate:g}" if learning_rate else "1 / L"


SPEC = MechanismSpec(
    id="labeldp-pro",
    title="LabelDP-Pro",
    summary="DP-SGD on the labels, its noisy gradient projected onto label-free per-class "
    "gradients (Ghazi et al. 2024)",
    privacy_unit="label",
    task="classification",
    settings={
        "batch": Setting(2048, "expected batch of the Poisson sampling", minimum=1, maximum=65536),
        "clip": Setting(
            0.1,
            "bound C on each gradient's norm (private and hull), > 0; 0.1 as DP-SGD's recipe",
        ),
        "delta": Setting(1e-5, "delta of the label-level (epsilon, delta) guarantee, in (0, 1)"),
        # The default is the proved reading: pld-replace-one rests on a worst case for gradient
        # vectors that is checked numerically, not proved (the family README), so it is offered,
        # not assumed.
        "accountant": Setting(
            "rdp",
            "privacy accountant: rdp / prv (DP-SGD's add/remove, read for a changed label by "
            "group privacy; proved, the default), or pld-replace-one (a changed label, about half "
            "the noise; its vector worst case is checked numerically, not proved)",
            choices=LABEL_ACCOUNTANTS,
        ),
        "public_batch": Setting(
            100, "n2: examples of the projection batch I_P (read without labels)", minimum=1
        ),
        "smoothing": Setting(
            0.75,
            "lambda: the projection's simplex weights mixed with uniform ones, lambda w + "
            "(1 - lambda) / K (the paper's smoothing; 1: the projection alone)",
            minimum=0.0,
            maximum=1.0,
        ),
        "smoothing_rule": Setting(
            "noise",
            "fixed: lambda is the smoothing setting; noise: lambda = r^2 / (1 + r^2), r = "
            "sigma sqrt(d) / batch, the noise's expected norm over the clip (near 1, the "
            "projection, at small epsilon; near 0, plain DP-SGD, where the noise is small)",
            choices=("fixed", "noise"),  # the trainer's SMOOTHING_RULES (no torch here)
        ),
        "rate_rule": Setting(
            "smoothing",
            "fixed: the SGD rate is dp_learning_rate; smoothing: dp_learning_rate x (1 - "
            "3 lambda / 4), the step shortened as it leans on the (biased) projection",
            choices=("fixed", "smoothing"),  # the trainer's RATE_RULES (no torch here)
        ),
        "smooth_towards": Setting(
            "noisy",
            "noisy: lambda x projection + (1 - lambda) x the noisy gradient (the default: it "
            "measured higher here, 0.656 against 0.529 on Fashion-MNIST at eps 1); uniform: the "
            "paper's smoothing of the projection's weights towards uniform ones",
            choices=("uniform", "noisy"),  # the denoiser's SMOOTHING_TARGETS (no torch here)
        ),
        "projection_steps": Setting(
            20, "projected gradient steps on the simplex weights", minimum=1, maximum=1000
        ),
        "hull": Setting(
            "per_example",
            "joint: one simplex over all n2 K per-class gradients (the paper's hull); "
            "per_example: one simplex of class weights per example (every soft labelling's mean "
            "gradient, a subset)",
            choices=("per_example", "joint"),  # the denoiser's HULLS (no torch here)
        ),
        "projection_solver": Setting(
            "fista",
            "fista: Nesterov's accelerated steps on the simplex weights (Beck and Teboulle 2009), "
            "nearer the projection in as many steps (the default: Fashion-MNIST 0.690 / 0.688 at "
            "eps 0.1 / 1 against 0.663 / 0.656); pgd: plain projected gradient steps (the paper's)",
            choices=("pgd", "fista"),
        ),
        "projection_start": Setting(
            "predicted",
            "the projection's first simplex weights: uniform ones (the mean of every per-class "
            "gradient), or predicted: the model's softmax on each example (the zero gradient "
            "before clipping; reads no label)",
            choices=("uniform", "predicted"),  # the denoiser's PROJECTION_STARTS (no torch here)
        ),
        "projection_lr": Setting(
            0.0,
            "eta of the paper's projection update w - 2 eta G^T (G w - g); 0: the step 1 / L "
            "(L the top eigenvalue of G^T G, by power iteration)",
            minimum=0.0,
            maximum=100.0,
        ),
        "momentum": Setting(0.9, "momentum of the SGD step", minimum=0.0, maximum=0.99),
        "dp_learning_rate": Setting(
            12.0,
            "learning rate of the private SGD (under rate_rule=smoothing, the rate at lambda 0)",
            minimum=1e-6,
            maximum=100.0,
        ),
        "cnn_model": Setting(
            "cnn-small",
            "what LabelDP-Pro trains when the model setting is cnn: cnn-small (the paper's small "
            "CNN) or logistic (multinomial logistic regression: digits' recipe, where the small "
            "CNN stays at chance at eps 1, and Fashion-MNIST's, on patch features)",
            choices=CNN_MODELS,
        ),
        "features": Setting(
            "pixels",
            "what the model reads: pixels, or patches: the images' label-free patch features "
            "(a k-means dictionary of whitened 5x5 patches, pooled codes, feature_dims principal "
            "components; learnt from the images alone, so they cost no label privacy)",
            choices=("pixels", "patches"),
        ),
        "feature_dims": Setting(
            128,
            "principal components of the patch features the model reads (features=patches)",
            minimum=2,
            maximum=1024,
        ),
        "noise": SAMPLER_NOISE_SETTING,
    },
    runner=run_labeldp_pro,
    check=validate_labeldp_pro,
    recipe=labeldp_pro_recipe,
    tuned=PRO_TUNING,
)
