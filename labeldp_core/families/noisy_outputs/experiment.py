"""Local DP on model outputs: noisy softmax vectors, and what the noise does to their clusters.

A model is trained once on clean labels (cached per dataset, seed and training settings); its
softmax outputs on the test images are released with Laplace noise of scale 2/ε per coordinate.
k-means then clusters the clean and the noisy outputs, and silhouette and Calinski-Harabasz
scores say how well separated the clusters still are.

The noise is NumPy's floating-point Laplace noise in both noise modes (the outputs are real
numbers, and the exact samplers need integers): ``float`` draws it from the run's seeded
generator, so the seed replays it; ``secure`` from a generator seeded from os.urandom.
"""

from typing import Any

import numpy as np

from labeldp_core import training
from labeldp_core.engine.blocks.release_noise import (
    SAMPLER_NOISE_SETTING,
    draw_sources,
    release_generator,
    sampler_details,
    sampler_source,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import MechanismSpec, Outcome, RunConfig
from labeldp_core.families.noisy_outputs.release import (
    PROBABILITY_SENSITIVITY,
    actual_epsilon,
    laplace_outputs_by_plan,
)
from labeldp_core.noise.laplace import laplace_scale
from labeldp_core.noise.noise_plans import laplace_plan

__all__ = [
    "PROJECTION_POINTS",
    "SILHOUETTE_SAMPLE",
    "SPEC",
    "cluster_scores",
    "run_softmax_laplace",
]

#: Silhouette costs O(n^2); it is estimated on this many points drawn with the run's seed.
SILHOUETTE_SAMPLE = 2000
#: Points of the 2-D projection kept in the result for the page's scatter plot.
PROJECTION_POINTS = 300
#: Stream of the seeded generator that picks the plotted points (apart from the noise's).
_PROJECTION_STREAM = 0x9C07
#: Draws that stay seeded in every mode, and why the guarantee does not need them secret.
_SEEDED_DRAWS = {
    "model training": "the model that answers, trained with the run's seed on clean labels: "
    "the guarantee protects each output vector, not the training data",
    "clustering and projection": "k-means, the silhouette sample, PCA and the plotted test "
    "points, seeded: post-processing of the released outputs (and of the clean ones, shown "
    "for comparison only)",
}
#: Figures that compare the noisy outputs with the clean ones or with the true labels.
_DIAGNOSTICS = (
    "test_accuracy",
    "details.mean_abs_noise",
    "details.argmax_agreement",
    "details.silhouette_clean",
    "details.calinski_harabasz_clean",
    "details.cluster_agreement_ari",
    "details.projection",
)


def cluster_scores(outputs: np.ndarray, num_clusters: int, seed: int) -> dict[str, Any]:
    """k-means on ``outputs``: cluster ids, silhouette (on a sample) and Calinski-Harabasz."""
    from sklearn.cluster import KMeans  # here: the registry imports this module, not sklearn
    from sklearn.metrics import calinski_harabasz_score, silhouette_score

    clusters = KMeans(num_clusters, n_init=3, random_state=seed).fit_predict(outputs)
    if np.unique(clusters).shape[0] < 2:
        return {"clusters": clusters, "silhouette": 0.0, "calinski_harabasz": 0.0}
    sample = min(SILHOUETTE_SAMPLE, outputs.shape[0])
    return {
        "clusters": clusters,
        "silhouette": float(
            silhouette_score(outputs, clusters, sample_size=sample, random_state=seed)
        ),
        "calinski_harabasz": float(calinski_harabasz_score(outputs, clusters)),
    }


def _clean_outputs(ctx: RunContext) -> np.ndarray:
    """Softmax outputs on the test images of the model trained on clean labels (cached)."""
    settings = ctx.train_settings
    payload = {
        "dataset": ctx.config.dataset,
        "seed": ctx.config.seed,
        "model": settings.model,
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "learning_rate": settings.learning_rate,
    }

    def compute() -> dict[str, np.ndarray]:
        trained = ctx.train(ctx.dataset.y_train, end=0.8, message="training on clean labels")
        probabilities = training.predict_proba(trained.model, ctx.dataset.x_test, settings)
        return {"probabilities": probabilities}

    return ctx.cache.arrays_or_compute(
        "clean-softmax", payload, compute, required=["probabilities"], by=__name__
    )["probabilities"]


def run_softmax_laplace(config: RunConfig, ctx: RunContext) -> Outcome:
    """Each output vector is released once at scale 2/ε: ε-LDP per output vector."""
    data, noise = ctx.dataset, config.setting("noise")
    clean = _clean_outputs(ctx)
    plan = laplace_plan(PROBABILITY_SENSITIVITY, config.epsilon)
    noisy = laplace_outputs_by_plan(clean, plan, release_generator(noise, ctx))
    ctx.progress(0.85, "clustering clean and noisy outputs")
    k = data.num_classes
    clean_scores = cluster_scores(clean, k, config.seed)
    noisy_scores = cluster_scores(noisy, k, config.seed)
    clean_argmax, noisy_argmax = clean.argmax(axis=1), noisy.argmax(axis=1)
    from sklearn.decomposition import PCA
    from sklearn.metrics import adjusted_rand_score

    projection = PCA(2, random_state=config.seed).fit(clean)
    plotted = np.random.default_rng([config.seed, _PROJECTION_STREAM])
    shown = plotted.choice(data.n_test, min(PROJECTION_POINTS, data.n_test), replace=False)
    return Outcome(
        epsilon_spent=plan.epsilon_spent,
        test_score=float(np.mean(noisy_argmax == data.y_test)),
        baseline_score=float(np.mean(clean_argmax == data.y_test)),
        n_train=data.n_train,
        details={
            "protects": "each released output vector (local DP, any two probability vectors: "
            "L1 distance <= 2). Not the training labels or images: the model saw clean labels.",
            "n_outputs": data.n_test,
            "noise_scale": plan.scale,
            **plan.describe("each output coordinate"),
            **sampler_details(noise, "NumPy's Laplace sampler"),
            "random_draws": draw_sources(
                noise, ["output noise"], _SEEDED_DRAWS, sampler_source(noise)
            ),
            "mean_abs_noise": float(np.mean(np.abs(noisy - clean))),
            "argmax_agreement": float(np.mean(noisy_argmax == clean_argmax)),
            "silhouette_clean": clean_scores["silhouette"],
            "silhouette_noisy": noisy_scores["silhouette"],
            "calinski_harabasz_clean": clean_scores["calinski_harabasz"],
            "calinski_harabasz_noisy": noisy_scores["calinski_harabasz"],
            "cluster_agreement_ari": float(
                adjusted_rand_score(clean_scores["clusters"], noisy_scores["clusters"])
            ),
            "silhouette_sample": min(SILHOUETTE_SAMPLE, data.n_test),
            "under_protection": {
                "assumed_sensitivity": 1.0,
                "scale": laplace_scale(1.0, config.epsilon),
                "actual_epsilon": actual_epsilon(config.epsilon, 1.0),
            },
            "projection": {
                "labels": data.y_test[shown].tolist(),
                "clean": np.round(projection.transform(clean[shown]), 5).tolist(),
                "noisy": np.round(projection.transform(noisy[shown]), 5).tolist(),
                "explained_variance": projection.explained_variance_ratio_.tolist(),
            },
            "test_accuracy_meaning": "share of test images whose noisy output's argmax is the "
            "true label; the baseline is the same for the clean outputs",
            "composition": "each output vector released once: epsilon-LDP per output vector",
        },
        diagnostics=_DIAGNOSTICS,
    )


SPEC = MechanismSpec(
    id="softmax-laplace",
    title="Laplace on model outputs (local DP)",
    summary="softmax output + Laplace noise of scale 2/eps per coordinate; clustering impact",
    privacy_unit="output",
    task="classification",
    settings={"noise": SAMPLER_NOISE_SETTING},
    runner=run_softmax_laplace,
)
