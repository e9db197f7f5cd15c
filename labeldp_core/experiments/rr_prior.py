"""RR-with-prior experiment: a cluster prior from noisy label histograms, RRTop-k, train, score.

The images are clustered without labels (PCA + k-means, cached per dataset, seed and number of
clusters). Each cluster's label histogram is released with discrete Laplace noise at
``prior_epsilon``; the normalised histogram of an example's cluster is its prior, and its label is
released by RR-with-prior at ``rr_epsilon``. Both steps read the same labels, so the budgets add
(sequential composition): the user sets the total and the split, and RR gets exactly the rest.
With ``noise=secure`` the histograms get exact discrete Laplace noise from os.urandom; its scale
is rounded up, so the prior spends a little less than planned and RR gets exactly what is left.
"""

import numpy as np

from labeldp_core.accounting import BudgetSplit, split_budget, split_budget_by_share
from labeldp_core.data.clusters import PCA_COMPONENTS, cluster_images
from labeldp_core.experiments.context import RunContext, label_statistics
from labeldp_core.experiments.noise import NOISE_SETTING, histogram_split, noise_details
from labeldp_core.experiments.spec import MechanismSpec, Outcome, RunConfig, Setting
from labeldp_core.mechanisms import (
    HISTOGRAM_SENSITIVITY,
    expected_flip_rate,
    noisy_label_counts,
    optimal_set_size,
    output_probabilities,
    prior_from_counts,
    rr_with_prior,
)

__all__ = [
    "PRIOR_MASS_BINS",
    "SPEC",
    "budget_split",
    "image_clusters",
    "prior_summary",
    "run_rr_prior",
]

#: Equal-width bins on [0, 1] for the distribution of the prior mass on the true label.
PRIOR_MASS_BINS = 20


def budget_split(config: RunConfig) -> BudgetSplit:
    """How ``config.epsilon`` is divided between the prior histogram and RR-with-prior.

    A uniform prior reads no labels and costs nothing; otherwise ``prior_epsilon`` if set above
    0, else the fraction ``prior_share`` of the total.
    """
    if config.setting("prior") == "uniform":
        return split_budget(config.epsilon, 0.0)
    if config.setting("prior_epsilon") > 0:
        return split_budget(config.epsilon, config.setting("prior_epsilon"))
    return split_budget_by_share(config.epsilon, config.setting("prior_share"))


def image_clusters(ctx: RunContext, clusters: int) -> np.ndarray:
    """Cluster ids of the training images (label-free), cached per dataset, seed and clusters."""
    payload = {
        "dataset": ctx.config.dataset,
        "seed": ctx.config.seed,
        "clusters": clusters,
        "components": PCA_COMPONENTS,
    }

    def compute() -> dict[str, np.ndarray]:
        ctx.progress(0.0, f"clustering the images (PCA + k-means, {clusters} clusters)")
        return {"ids": cluster_images(ctx.dataset.x_train, clusters, ctx.config.seed)}

    return ctx.cache.arrays_or_compute("image-clusters", payload, compute)["ids"]


def prior_summary(priors: np.ndarray, labels: np.ndarray, epsilon: float) -> dict[str, object]:
    """What the prior does for RR-with-prior at ``epsilon``, as JSON-ready figures.

    The chosen set sizes k* (counts for k = 1..K), the prior mass on the true label (counts in
    :data:`PRIOR_MASS_BINS` bins on [0, 1]), how often the true label is in the set, and the
    expected flip rate given these priors (closed form).
    """
    num_classes = priors.shape[1]
    sizes = optimal_set_size(priors, epsilon)
    true_mass = priors[np.arange(labels.shape[0]), labels]
    mass_counts, edges = np.histogram(true_mass, bins=PRIOR_MASS_BINS, range=(0.0, 1.0))
    keep = output_probabilities(priors, labels, epsilon)[np.arange(labels.shape[0]), labels]
    in_set = keep > 0  # a true label outside the top-k* set is never reported
    return {
        "set_size_counts": np.bincount(sizes, minlength=num_classes + 1)[1:].tolist(),
        "mean_set_size": float(sizes.mean()),
        "prior_true_mass_counts": mass_counts.tolist(),
        "prior_true_mass_edges": edges.tolist(),
        "mean_prior_true_mass": float(true_mass.mean()),
        "true_in_set_rate": float(in_set.mean()),
        "expected_flip_rate": float(1.0 - keep.mean()),
    }


def _cluster_priors(
    ctx: RunContext, labels: np.ndarray, planned: BudgetSplit
) -> tuple[np.ndarray, BudgetSplit, dict[str, object]]:
    """Priors per example, the budget split actually spent, and facts for the details."""
    data = ctx.dataset
    noise = ctx.config.setting("noise")
    if ctx.config.setting("prior") == "uniform":
        uniform = np.full((labels.shape[0], data.num_classes), 1.0 / data.num_classes)
        return (
            uniform,
            planned,
            {
                "prior": "uniform: reads no labels, so RR-with-prior is plain RR",
                **noise_details(noise, "none: a uniform prior reads no labels", None),
                "composition": "one release: epsilon_spent = rr_epsilon (label-DP, replace-one)",
            },
        )
    clusters = ctx.config.setting("clusters")
    ids = image_clusters(ctx, clusters)
    counts = noisy_label_counts(
        ids, labels, clusters, data.num_classes, planned.prior_epsilon, ctx.rng, noise=noise
    )
    split, exact = histogram_split(planned, noise)
    scale = f"{exact}" if exact is not None else f"2/{planned.prior_epsilon:.4g}"
    facts = {
        "prior": "clusters: PCA + k-means on the images, noisy label histogram per cluster",
        "clusters": clusters,
        "pca_components": PCA_COMPONENTS,
        **noise_details(noise, f"cluster histograms: discrete Laplace, scale {scale}", exact),
        "histogram_noise": "discrete Laplace, L1 sensitivity 2, clipped at 0 and normalised",
        "histogram_sensitivity": HISTOGRAM_SENSITIVITY,
        "empty_clusters_after_noise": int(np.sum(np.clip(counts, 0, None).sum(axis=1) == 0)),
        "composition": (
            "sequential: the prior histogram and RR-with-prior read the same labels, so "
            "epsilon_spent = prior_epsilon + rr_epsilon (label-DP, replace-one)"
        ),
    }
    return prior_from_counts(counts)[ids], split, facts


def run_rr_prior(config: RunConfig, ctx: RunContext) -> Outcome:
    """Release labels by RR-with-prior under a cluster (or uniform) prior, train, score.

    ``epsilon_spent`` is the sequential composition of the prior's and RR's budgets.
    """
    data = ctx.dataset
    priors, split, prior_facts = _cluster_priors(ctx, data.y_train, budget_split(config))
    released = rr_with_prior(data.y_train, priors, split.release_epsilon, ctx.rng)
    stats = label_statistics(data.y_train, released, data.num_classes)
    trained = ctx.train(released, message="training on released labels")
    return Outcome(
        epsilon_spent=split.spent,
        test_score=trained.final,
        n_train=data.n_train,
        flip_rate=stats["flip_rate"],
        label_accuracy=stats["label_accuracy"],
        details={
            "budget": {
                "total": split.total,
                "prior_epsilon": split.prior_epsilon,
                "rr_epsilon": split.release_epsilon,
                "spent": split.spent,
            },
            **prior_facts,
            **prior_summary(priors, data.y_train, split.release_epsilon),
            "rr_expected_flip_rate": expected_flip_rate(config.epsilon, data.num_classes),
            "confusion": stats["confusion"],
            "test_curve": list(trained.test_curve),
        },
    )


SPEC = MechanismSpec(
    id="rr-prior",
    title="RR with prior",
    summary="randomized response over the top-k* labels of a noisy cluster prior; "
    "eps = prior_epsilon + rr_epsilon",
    privacy_unit="label",
    task="classification",
    settings={
        "prior": Setting(
            "clusters",
            "where the prior comes from: noisy label histograms of image clusters, or uniform "
            "(plain RR)",
            ("clusters", "uniform"),
        ),
        "clusters": Setting(20, "k-means clusters of the images", minimum=1, maximum=1000),
        "prior_share": Setting(
            0.2, "fraction of epsilon spent on the cluster histograms", minimum=0.01, maximum=0.99
        ),
        "prior_epsilon": Setting(
            0.0,
            "absolute epsilon of the cluster histograms; overrides prior_share when above 0 "
            "and must stay below epsilon",
            minimum=0.0,
        ),
        "noise": NOISE_SETTING,
    },
    runner=run_rr_prior,
    check=budget_split,
)
