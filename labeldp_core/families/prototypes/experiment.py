"""DP prototypes (DPPL): DPPL-Mean, DPPL-Public and DPPL-Public Top-K on an imbalanced private set.

Every run: split the training set into a public and a private part (by seed), train the encoder
on the public part and embed everything (cached, :mod:`public_encoder`), subsample the private
part to the requested imbalance (by seed), release DP prototypes from the private part, and
classify the test set by cosine similarity to them. No model is trained on the release, so the
clean reference (``baseline_score``) is the same prototypes computed without privacy.

Privacy unit: one private example, image and label together; neighbouring datasets differ by
adding or removing one (add/remove). Replace-one figures are given in ``details`` too.

CoinPress's Gaussian noise and the exponential mechanism's picks are floating point in both noise
modes: ``float`` draws them from the run's seeded generator (the seed replays them), ``secure``
from a generator seeded from os.urandom. The split, the encoder and the imbalanced subsample stay
seeded in both (``details["random_draws"]`` says why).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from labeldp_core.accounting.zcdp import group_zcdp, rho_for_approx_dp, zcdp_to_approx_dp
from labeldp_core.data import load_dataset
from labeldp_core.data.dataset import Dataset
from labeldp_core.data.imbalance import ImbalancedSubset
from labeldp_core.engine.blocks.private_set import (
    PUBLIC_FRACTION,
    SUBSAMPLE_DRAW,
    imbalanced_private_set,
)
from labeldp_core.engine.blocks.release_noise import (
    SAMPLER_NOISE_SETTING,
    draw_sources,
    release_generator,
    sampler_details,
    sampler_source,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.public_encoder import (
    ENCODER_MODELS,
    PublicEmbeddings,
    encoder_payload,
    public_embeddings,
)
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig, Setting
from labeldp_core.families.prototypes.release import (
    check_score_range,
    class_utilities,
    nearest_prototype,
    normalise_rows,
    private_class_means,
    public_prototype_indices,
)

__all__ = [
    "MEAN_SPEC",
    "MINORITY_SHARE",
    "NEIGHBOURS",
    "PUBLIC_FRACTION",
    "PUBLIC_SPEC",
    "SUBSAMPLE_DRAW",
    "SUBSAMPLE_SCOPE",
    "TOPK_SPEC",
    "check_scores",
    "imbalanced_private_set",
    "run_dppl_mean",
    "run_dppl_public",
    "run_dppl_topk",
]

#: The share of classes (the smallest ones) reported as the minority.
MINORITY_SHARE = 0.3
NEIGHBOURS = "add/remove one private example (its image and its label together)"
#: What every run's guarantee covers: the subsample is cut by class at every imbalance (at 1,
#: each class to the smallest one's size), so never the whole private part.
SUBSAMPLE_SCOPE = (
    "the private set only: it is a subsample of the private part whose class sizes were chosen "
    "from the true labels (without privacy; at imbalance 1 every class is cut to the smallest "
    "one's size), so epsilon covers adding or removing an example of that subsample, not of the "
    "whole private part"
)
#: Figures computed from the private set without privacy, shared by the three mechanisms.
_COMMON_DIAGNOSTICS = (
    "details.class_counts",
    "details.class_order",
    "details.realised_imbalance",
    "details.minority_classes",
    "details.baseline_per_class_accuracy",
    "details.baseline_minority_accuracy",
)
#: Draws that stay seeded in every mode, and why the guarantee does not need them secret.
_SEEDED_DRAWS = {
    "public/private split": "a seeded permutation of the training indices: reads no label",
    "encoder training": "the encoder trains on the public part only, with the run's seed: it "
    "reads no private example",
}
_ENCODER_END = 0.9

_SHARED = {
    "model": Setting(
        "cnn", "public encoder: trained on the public part, its last layer dropped", ENCODER_MODELS
    ),
    "batch_size": Setting(128, "encoder training batch size", minimum=1, maximum=65536),
    "learning_rate": Setting(2e-3, "encoder Adam learning rate", minimum=1e-6, maximum=1.0),
    "public_fraction": Setting(
        PUBLIC_FRACTION,
        "share of the training split made public (encoder training data and candidates)",
        minimum=0.05,
        maximum=0.5,
    ),
    "imbalance": Setting(
        1.0, "largest / smallest private class size (1 = balanced)", minimum=1.0, maximum=1000.0
    ),
    "noise": SAMPLER_NOISE_SETTING,
}
_SCORES = {
    "min_score": Setting(
        1.0,
        "lower clip of 1 + cosine similarity, in [0, 2) (1: an example whose embedding "
        "points away from a candidate adds nothing to its utility)",
        minimum=0.0,
        maximum=2.0,
    ),
    "max_score": Setting(
        2.0, "upper clip of 1 + cosine similarity (in (min_score, 2])", minimum=0.0, maximum=2.0
    ),
}


@dataclass(frozen=True)
class _PrivateSet:
    embeddings: np.ndarray
    labels: np.ndarray
    subset: ImbalancedSubset
    pool_size: int

    @property
    def minority(self) -> list[int]:
        """The smallest classes (the last ranks of the imbalance order)."""
        size = max(1, math.ceil(MINORITY_SHARE * len(self.subset.order)))
        return sorted(int(c) for c in self.subset.order[-size:])


def _private_set(config: RunConfig, data: Dataset, emb: PublicEmbeddings) -> _PrivateSet:
    """The private set: the subsample drawn from the labels as loaded, with the run's labels.

    The subsample (cut by class, at every imbalance) is the data holder's choice, outside the
    guarantee (:data:`SUBSAMPLE_SCOPE`); a context that changes the run's labels (the canary
    audit's planted ones) changes the labels inside it, never which examples it holds. In an
    ordinary run both are the same labels.
    """
    kept, subset = imbalanced_private_set(
        emb.private_index,
        load_dataset(config.dataset).y_train,
        data.num_classes,
        config.setting("imbalance"),
        config.seed,
    )
    return _PrivateSet(emb.train[kept], data.y_train[kept], subset, len(emb.private_index))


def _note_scores(
    ctx: RunContext, emb: PublicEmbeddings, released: np.ndarray, clean: np.ndarray
) -> None:
    """Hand the cosine similarities of training rows to the released and the clean prototypes.

    The test set is classified by the largest of these scores; the canary audit reads them on
    its canaries (:meth:`~labeldp_core.engine.context.RunContext.note_released_scores`).
    """

    def scores(prototypes: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        unit = normalise_rows(prototypes)
        return lambda rows: normalise_rows(emb.train[rows]) @ unit.T

    ctx.note_released_scores(scores(released), scores(clean))


def _draw_details(config: RunConfig, released: str, samplers: str) -> dict[str, object]:
    """The noise mode's entries and where every draw of the run came from (``random_draws``)."""
    noise = config.setting("noise")
    seeded = dict(_SEEDED_DRAWS)
    if config.setting("imbalance") > 1:
        seeded["imbalanced subsample"] = SUBSAMPLE_DRAW
    return sampler_details(noise, samplers) | {
        "random_draws": draw_sources(noise, [released], seeded, sampler_source(noise)),
    }


def _scores(prototypes: np.ndarray, emb: PublicEmbeddings, data: Dataset) -> dict[str, object]:
    predicted = nearest_prototype(emb.test, prototypes)
    correct = predicted == data.y_test
    per_class = [float(correct[data.y_test == c].mean()) for c in range(data.num_classes)]
    return {"accuracy": float(correct.mean()), "per_class": per_class}


def _outcome(
    *,
    ctx: RunContext,
    private: _PrivateSet,
    emb: PublicEmbeddings,
    released: dict[str, object],
    clean: dict[str, object],
    epsilon_spent: float,
    delta: float,
    details: dict[str, object],
    diagnostics: tuple[str, ...],
) -> Outcome:
    config = ctx.config
    minority = private.minority

    def minority_mean(per_class: list[float]) -> float:
        return float(np.mean([per_class[c] for c in minority]))

    counts = private.subset.counts
    common = {
        "neighbouring": NEIGHBOURS,
        "public_part": (
            f"{len(emb.public_index):,} training images ({config.setting('public_fraction'):.0%}"
            f", chosen by seed {config.seed}) with their labels: they train the encoder"
        ),
        "private_part": (
            f"{len(private.labels):,} of the other {private.pool_size:,} training images, "
            f"subsampled to imbalance {config.setting('imbalance'):g} (seed {config.seed})"
        ),
        "encoder": (
            f"{config.setting('model')} trained on the public part for {ctx.train_settings.epochs}"
            f" epochs; embedding = input of its last layer, centred on the public mean, unit length"
        ),
        "public_encoder_test_accuracy": emb.encoder_test_accuracy,
        "class_counts": counts.tolist(),
        "class_order": private.subset.order.tolist(),
        "realised_imbalance": private.subset.ratio,
        "minority_classes": minority,
        "per_class_accuracy": released["per_class"],
        "minority_accuracy": minority_mean(released["per_class"]),
        "baseline_per_class_accuracy": clean["per_class"],
        "baseline_minority_accuracy": minority_mean(clean["per_class"]),
        "diagnostics_note": (
            "class counts, the clean baseline and utility ranks are computed from the private "
            "data for teaching; they are not part of the DP release"
        ),
        "guarantee_scope": SUBSAMPLE_SCOPE,
    }
    return Outcome(
        epsilon_spent=epsilon_spent,
        test_score=released["accuracy"],
        n_train=len(private.labels),
        baseline_score=clean["accuracy"],
        delta=delta,
        details=common | details,
        diagnostics=diagnostics,
    )


def run_dppl_mean(config: RunConfig, ctx: RunContext) -> Outcome:
    """DPPL-Mean: CoinPress means per class at the rho whose (epsilon, delta) meets the budget.

    rho is the largest zCDP budget whose conversion at the run's delta is at most epsilon
    (:func:`rho_for_approx_dp`), so ``epsilon_spent`` <= epsilon.
    """
    data = ctx.dataset
    emb = public_embeddings(ctx, config.setting("public_fraction"), end=_ENCODER_END)
    private = _private_set(config, data, emb)
    ctx.progress(0.95, "private class means (CoinPress)")
    spread = emb.spread(data.y_train[emb.public_index])
    delta = config.setting("delta")
    rho_asked = rho_for_approx_dp(config.epsilon, delta)
    release = private_class_means(
        private.embeddings,
        private.labels,
        data.num_classes,
        rho_asked,
        release_generator(config.setting("noise"), ctx),
        steps=config.setting("steps"),
        count_share=config.setting("count_share"),
        spread=spread,
    )
    exact = np.stack(
        [private.embeddings[private.labels == c].mean(axis=0) for c in range(data.num_classes)]
    )
    rho = release.rho
    _note_scores(ctx, emb, release.prototypes, exact)
    return _outcome(
        ctx=ctx,
        private=private,
        emb=emb,
        released=_scores(release.prototypes, emb, data),
        clean=_scores(exact, emb, data),
        epsilon_spent=zcdp_to_approx_dp(rho, delta),
        delta=delta,
        details={
            "rho": rho,
            "rho_count": release.count_rho,
            "rho_steps": list(release.step_rhos),
            "epsilon_replace_one": zcdp_to_approx_dp(group_zcdp(rho, 2), delta),
            "rho_replace_one": group_zcdp(rho, 2),
            **_draw_details(config, "CoinPress noise", "NumPy's Gaussian sampler"),
            "spread": spread,
            "noisy_counts": None if release.noisy_counts is None else release.noisy_counts.tolist(),
            "clip_radii": [list(t.clip_radii) for t in release.traces],
            "noise_sd_of_sums": [list(t.noise_sds) for t in release.traces],
            "composition": (
                f"rho = {rho:.4g}-zCDP per class (count {release.count_rho:.3g} + CoinPress "
                f"steps {', '.join(f'{r:.3g}' for r in release.step_rhos)}); an example changes "
                f"only its own class, so classes compose in parallel: {rho:.4g}-zCDP under "
                f"add/remove, which is ({zcdp_to_approx_dp(rho, delta):.4g}, {delta:g})-DP by "
                f"rho + 2 sqrt(rho ln(1/delta)); replace-one is two steps: 4 rho-zCDP"
            ),
            "epsilon_meaning": (
                "rho is calibrated so that its (epsilon, delta)-DP guarantee at the run's delta, "
                "rho + 2 sqrt(rho ln(1/delta)), is at most the epsilon asked for: epsilon_spent "
                "is that guarantee (the tighter conversion of Canonne, Kamath & Steinke 2020 "
                "would give a slightly smaller epsilon)"
            ),
        },
        diagnostics=_COMMON_DIAGNOSTICS,
    )


def _utilities(ctx: RunContext, emb: PublicEmbeddings, private: _PrivateSet) -> np.ndarray:
    config = ctx.config
    low, high = config.setting("min_score"), config.setting("max_score")
    payload = encoder_payload(ctx, config.setting("public_fraction")) | {
        "imbalance": config.setting("imbalance"),
        "min_score": low,
        "max_score": high,
    }

    def compute() -> dict[str, np.ndarray]:
        utilities = class_utilities(
            emb.public,
            private.embeddings,
            private.labels,
            ctx.dataset.num_classes,
            min_score=low,
            max_score=high,
        )
        return {"utilities": utilities}

    return ctx.cache.arrays_or_compute(
        "dppl-utilities", payload, compute, required=["utilities"], by=__name__
    )["utilities"]


def _run_public(config: RunConfig, ctx: RunContext, k: int) -> Outcome:
    data = ctx.dataset
    emb = public_embeddings(ctx, config.setting("public_fraction"), end=_ENCODER_END)
    private = _private_set(config, data, emb)
    ctx.progress(_ENCODER_END, "scoring the public candidates")
    utilities = _utilities(ctx, emb, private)
    ctx.progress(0.97, "selecting prototypes (exponential mechanism)")
    # Each class's picks, sorted by candidate index: the order carries nothing beyond the set.
    generator = release_generator(config.setting("noise"), ctx)
    chosen = public_prototype_indices(utilities, config.epsilon, generator, k)
    ranking = np.argsort(-utilities, axis=1, kind="stable")
    best = ranking[:, :k]
    rank_of = np.argsort(ranking, axis=1)

    def prototypes(indices: np.ndarray) -> np.ndarray:
        return normalise_rows(emb.public[indices].mean(axis=1))

    # Each class's selection is epsilon-DP (monotone exponential mechanism, sensitivity 1) and an
    # example changes one class only, so by parallel composition the release spends the maximum.
    per_class_epsilon = [config.epsilon] * data.num_classes
    epsilon_spent = max(per_class_epsilon)
    _note_scores(ctx, emb, prototypes(chosen), prototypes(best))
    return _outcome(
        ctx=ctx,
        private=private,
        emb=emb,
        released=_scores(prototypes(chosen), emb, data),
        clean=_scores(prototypes(best), emb, data),
        epsilon_spent=epsilon_spent,
        delta=0.0,
        details={
            "k": k,
            "candidates": len(emb.public_index),
            "prototype_train_indices": emb.public_index[chosen].tolist(),
            "baseline_prototype_train_indices": emb.public_index[best].tolist(),
            "chosen_utility_rank": np.take_along_axis(rank_of, chosen, axis=1).tolist(),
            "epsilon_per_class": per_class_epsilon,
            "epsilon_replace_one": 2 * epsilon_spent,
            **_draw_details(
                config,
                "exponential-mechanism picks",
                "the exponential mechanism's probabilities in double precision, NumPy's uniform "
                "draws",
            ),
            "composition": (
                f"per class one exponential-mechanism draw of {'a set of ' if k > 1 else ''}"
                f"{k} candidate{'s' if k > 1 else ''}, sensitivity 1, monotone under add/remove "
                f"(probability proportional to exp(epsilon u)): epsilon-DP per class; classes "
                f"compose in parallel: epsilon = {epsilon_spent:g} under add/remove (pure DP, "
                f"delta 0); replace-one can move an example between two classes: "
                f"{2 * epsilon_spent:g}"
            ),
            "released_order": (
                "each class's picks are released as a set, sorted by candidate index: the "
                "exponential mechanism's guarantee covers the set, not an order"
            ),
        },
        diagnostics=(
            *_COMMON_DIAGNOSTICS,
            "details.baseline_prototype_train_indices",
            "details.chosen_utility_rank",
        ),
    )


def run_dppl_public(config: RunConfig, ctx: RunContext) -> Outcome:
    """DPPL-Public: one public prototype per class by the exponential mechanism."""
    return _run_public(config, ctx, 1)


def check_scores(config: RunConfig) -> tuple[float, float]:
    """Refuse an empty clipping window when the config is made, before the encoder trains."""
    return check_score_range(config.setting("min_score"), config.setting("max_score"))


def run_dppl_topk(config: RunConfig, ctx: RunContext) -> Outcome:
    """DPPL-Public Top-K: K public prototypes per class in one joint draw; their mean is used."""
    return _run_public(config, ctx, config.setting("k"))


MEAN_SPEC = MechanismSpec(
    id="dppl-mean",
    title="DPPL-Mean",
    summary="private class means of public-encoder embeddings (CoinPress, zCDP calibrated to "
    "(eps, delta))",
    privacy_unit="example",
    task="classification",
    settings=_SHARED
    | {
        "steps": Setting(2, "CoinPress steps (1 = plain Gaussian mean)", minimum=1, maximum=5),
        "count_share": Setting(
            0.1,
            "share of rho spent on the class counts when steps > 1",
            minimum=0.01,
            maximum=0.5,
        ),
        "delta": Setting(
            1e-5, "delta of the reported (epsilon, delta)", minimum=1e-12, maximum=0.1
        ),
    },
    runner=run_dppl_mean,
    trains_model=False,
)

PUBLIC_SPEC = MechanismSpec(
    id="dppl-public",
    title="DPPL-Public",
    summary="one public example per class as prototype, picked by the exponential mechanism",
    privacy_unit="example",
    task="classification",
    settings=_SHARED | _SCORES,
    runner=run_dppl_public,
    trains_model=False,
    check=check_scores,
)

TOPK_SPEC = MechanismSpec(
    id="dppl-topk",
    title="DPPL-Public Top-K",
    summary="K public examples per class in one exponential-mechanism draw; prototype = their mean",
    privacy_unit="example",
    task="classification",
    settings=_SHARED
    | _SCORES
    | {
        "k": Setting(3, "public prototypes per class", minimum=1, maximum=100),
    },
    runner=run_dppl_topk,
    trains_model=False,
    check=check_scores,
)
