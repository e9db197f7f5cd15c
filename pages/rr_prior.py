"""RR with prior: the budget split, the prior's quality, k*, flip rates and accuracy vs epsilon."""

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text, in_words, score_change, score_text
from labeldp_core.data import dataset_info
from labeldp_core.engine.blocks.release_noise import histogram_split
from labeldp_core.experiments import RunConfig, RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.rr_prior.experiment import budget_split, rr_prior_recipe
from labeldp_core.families.rr_prior.lp_2st import lp_2st_recipe
from labeldp_core.mechanisms import expected_flip_rate
from ui.clean import page_clean_line
from ui.consensus import consensus_section, stored_series
from ui.controls import Controls, current_controls, noise_control
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import (
    computed_stops,
    diagnostics_caption,
    reported_errors,
    result_for,
    stored,
)
from ui.risk import RiskOf
from ui.sweeps import compute_button

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("rr-prior"))
CLUSTER_CHOICES = (5, 10, 20, 50, 100, 200, 400)
FEATURE_CHOICES = ("pixels", "patches", "encoder")
STAGE1_CHOICES = ("uniform", "clusters")
STAGE1_LABELS = {"uniform": "plain RR (uniform prior)", "clusters": "RR with a cluster prior"}
BUDGET_COLUMNS = ("mechanism", "step", "labels read", "ε", "from")
PLANNED = "planned (not computed yet)"
NAMES = {"rr": "RR", "rr-prior": "RR with prior", "lp-2st": "LP-2ST"}


def render() -> None:
    """Draw the page: the prior's sidebar, ε, flip rates under it, the budget, the run, curves."""
    controls = current_controls()
    st.title("RR with prior")
    noise_settings, prior_settings, lp_settings = _sidebar(controls)
    # The sidebar's settings first: the slider stops where this page's own points are cached.
    epsilon = epsilon_control(
        label="Total privacy budget ε",
        grid=computed_stops("rr-prior", controls, prior_settings),
        risk=RiskOf(dataset_info(controls.dataset).num_classes),
    )
    headline = st.container()  # the flip rates, right under the ε control (drawn at the end)
    st.markdown(
        "Randomized response wastes its budget on labels nobody would believe. With a prior over "
        "each example's label that does not read that label, RR-with-prior (Ghazi et al. 2021) "
        "keeps only the k* most likely labels, picking k* to maximise the chance of reporting the "
        "true one, and runs k*-ary RR inside that set. Here the prior is a noisy label histogram "
        "of the example's image cluster, so the budget is split: part buys the prior, RR gets the "
        "rest. Clusters of a public encoder's embeddings are purer than clusters of pixels, but "
        "that encoder learned from a public part's labels, so ε then covers only the other labels."
    )
    with reported_errors():
        where = (controls.dataset, epsilon, controls.seed, controls.epochs_asked)
        config = make_config("rr-prior", *where, prior_settings)
        lp_config = make_config("lp-2st", *where, lp_settings)
    result, stages = _budget(controls, config, lp_config, epsilon)
    num_classes = dataset_info(controls.dataset).num_classes
    if result is None:
        st.info(
            "Not computed yet: the button under the ε control clusters and trains; it is cached."
        )
    else:
        _run(result, epsilon, num_classes)
    st.subheader("RR vs RR with prior vs LP-2ST")
    with reported_errors():
        configs = _comparison_configs(
            controls, {"rr": noise_settings, "rr-prior": prior_settings, "lp-2st": lp_settings}
        )
        found, absent = stored_series(configs)
    own_seed = {name: [r for r in runs if r.seed == controls.seed] for name, runs in found.items()}
    _flip_rates(headline, num_classes, own_seed, absent, epsilon, controls.seed)
    _accuracy_curve(controls, found, absent, num_classes, epsilon)
    paired = {
        name: [c for c in series if c.seed == controls.seed] for name, series in configs.items()
    }
    consensus_section(paired, epsilon, 1 / num_classes)  # paired with the run above
    if stages is not None:
        _lp_2st_stages(stages, epsilon)


def _sidebar(controls: Controls) -> tuple[dict, dict, dict]:
    """Draw the prior's settings in the sidebar (and the noise mode, and LP-2ST's stage 1).

    Returns:
        The settings of RR (the shared ones and the noise mode), those of RR with prior (these
        and the prior's) and those of LP-2ST (the shared ones and its first stage's prior).
    """
    st.sidebar.header("Prior")
    share = st.sidebar.slider(
        "Share of ε spent on the prior",
        min_value=0.05,
        max_value=0.95,
        value=0.2,
        step=0.05,
        key="prior_share",
        bind="query-params",
        help="The cluster histograms get this fraction of ε; randomized response gets the rest.",
    )
    share = round(float(share), 2)
    default_clusters = rr_prior_recipe(controls.dataset).get("clusters", 20)
    clusters = linked(
        st.sidebar.selectbox,
        "Image clusters",
        "clusters",
        CLUSTER_CHOICES,
        index=CLUSTER_CHOICES.index(default_clusters),
        help=f"k-means clusters of the images (PCA first); no labels are read. Default for "
        f"{controls.dataset_name}: {default_clusters} (dataset size / 350, at least 20).",
    )
    default_features = rr_prior_recipe(controls.dataset).get("prior_features", "pixels")
    features = linked(
        st.sidebar.selectbox,
        "Cluster on",
        "prior_features",
        FEATURE_CHOICES,
        index=FEATURE_CHOICES.index(default_features),
        help="What k-means groups: the images' pixels or their patch features (learnt from every "
        "image without a label; the default on Fashion-MNIST), neither of which reads a label, "
        "or their embeddings by a public encoder. The encoder is trained on a public sixth of "
        "the training set with its labels, which are then treated as public: ε covers the "
        "other labels only.",
    )
    noise_settings = controls.settings | {"noise": noise_control()}
    prior_settings = noise_settings | {
        "prior_share": share,
        "clusters": int(clusters),
        "prior_features": features,
    }
    return noise_settings, prior_settings, noise_settings | {"stage1_prior": _stage1(controls)}


def _stage1(controls: Controls) -> str:
    """LP-2ST's first-stage prior, chosen in the sidebar (this dataset's recipe first)."""
    default = lp_2st_recipe(controls.dataset).get("stage1_prior", "uniform")
    return linked(
        st.sidebar.selectbox,
        "LP-2ST's stage 1",
        "stage1_prior",
        STAGE1_CHOICES,
        index=STAGE1_CHOICES.index(default),
        labels=STAGE1_LABELS.__getitem__,
        help="How LP-2ST releases its first part: plain RR, or RR with prior under noisy label "
        "histograms of label-free image clusters that count that part's labels only (its "
        f"default on Fashion-MNIST, where it measured higher). Default for "
        f"{controls.dataset_name}: {default}.",
    )


def _budget(
    controls: Controls, config: RunConfig, lp_config: RunConfig, epsilon: float
) -> tuple[RunResult | None, RunResult | None]:
    """Draw where the budget goes (planned at once, then as spent); return both runs if stored.

    Returns:
        The run of RR with prior (computed now if quick, else its button) and LP-2ST's run.
    """
    st.subheader("Where the budget goes")
    budget_area = st.empty()  # the plan at once, before any training; the runs' figures replace it
    with reported_errors():
        stages = stored(lp_config)
        draw_budget(budget_area, config, epsilon, stored(config), stages)
        result = result_for(
            config,
            f"Compute ε = {epsilon:g} on {controls.dataset_name}",
            "Clustering, releasing labels, training",
        )
    draw_budget(budget_area, config, epsilon, result, stages)
    return result, stages


def draw_budget(
    area: DeltaGenerator,
    config: RunConfig,
    epsilon: float,
    result: RunResult | None,
    stages: RunResult | None,
) -> None:
    """The budget table: what the computed runs spent, else what the settings plan."""
    if result is not None:
        rr_budget, rr_from = result.details["budget"], "this run"
    else:
        split, _ = histogram_split(budget_split(config), config.setting("noise"))
        rr_budget = {
            "prior_epsilon": split.prior_epsilon,
            "rr_epsilon": split.release_epsilon,
            "spent": split.spent,
        }
        rr_from = PLANNED
    lp_budget, lp_from = (
        (stages.details["budget"], "this run")
        if stages is not None
        else ({"stage1_epsilon": epsilon, "spent": epsilon}, PLANNED)
    )
    rows = _budget_rows(rr_budget, rr_from, lp_budget, lp_from)
    with area.container():
        st.table([dict(zip(BUDGET_COLUMNS, row, strict=True)) for row in rows])
        st.caption(
            f"Of ε = {epsilon:g}, RR with prior spends "
            f"{epsilon_text(rr_budget['spent'], epsilon, 6)} and LP-2ST "
            f"{epsilon_text(lp_budget['spent'], epsilon, 6)} (label-DP, replace-one); the last "
            "column says whether a number is what a computed run spent or what this setting "
            "plans. Moving the split "
            "towards the prior makes the histograms sharper but leaves RR less to spend: at the "
            "extremes either the prior is noise or RR is."
        )


def _budget_rows(rr_budget: dict, rr_from: str, lp_budget: dict, lp_from: str) -> list[tuple]:
    """The budget table's rows (:data:`BUDGET_COLUMNS`): each step of both mechanisms."""
    return [
        (
            "RR with prior",
            "noisy label histogram per cluster (discrete Laplace, L1 sensitivity 2)",
            "all",
            epsilon_text(rr_budget["prior_epsilon"], digits=6),
            rr_from,
        ),
        (
            "RR with prior",
            "RR over each example's top-k* labels",
            "all",
            epsilon_text(rr_budget["rr_epsilon"], digits=6),
            rr_from,
        ),
        (
            "RR with prior",
            "total: sequential composition (both steps read the same labels, so ε adds)",
            "all",
            epsilon_text(rr_budget["spent"], digits=6),
            rr_from,
        ),
        *_lp_rows(lp_budget, lp_from),
    ]


def _lp_rows(budget: dict, source: str) -> list[tuple]:
    """LP-2ST's budget rows: per stage, and stage 1's two steps when it used a cluster prior."""
    if "stage1_prior_epsilon" in budget:  # stage 1 is RR with prior under part A's histograms
        steps = [
            ("stage 1: noisy label histogram per cluster, part A's labels", "part A", "prior"),
            ("stage 1: RR over each example's top-k* labels", "part A", "rr"),
        ]
        rows = [
            (
                "LP-2ST",
                what,
                half,
                epsilon_text(budget[f"stage1_{key}_epsilon"], digits=6),
                source,
            )
            for what, half, key in steps
        ]
        rows.append(
            (
                "LP-2ST",
                "stage 2: RR with the stage-1 model's prior",
                "part B",
                epsilon_text(budget["stage2_epsilon"], digits=6),
                source,
            )
        )
    else:
        rows = [
            (
                "LP-2ST",
                "stage 1: RR on part A; stage 2: RR with the stage-1 model's prior on part B",
                "each part once",
                f"{epsilon_text(budget['stage1_epsilon'], digits=6)} per stage",
                source,
            )
        ]
    total = "total: parallel composition (disjoint parts, so ε does not add)"
    return [
        *rows,
        ("LP-2ST", total, "each part once", epsilon_text(budget["spent"], digits=6), source),
    ]


def _run(result: RunResult, epsilon: float, num_classes: int) -> None:
    """Draw the run's metrics, then how much its prior knew and how large its label sets were."""
    details = result.details
    cols = st.columns(4)
    cols[0].metric(
        "Measured flip rate",
        score_text(result.flip_rate),
        score_change(result.flip_rate, expected_flip_rate(epsilon, num_classes), "vs plain RR"),
        delta_color="inverse",
    )
    cols[1].metric(
        "Test accuracy",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, result.baseline_test_accuracy, "vs clean"),
    )
    cols[2].metric(
        "ε spent", epsilon_text(result.epsilon_spent, result.epsilon), help="label-DP, replace-one"
    )
    cols[3].metric("Mean k*", f"{details['mean_set_size']:.2f} of {num_classes}")
    left, right = st.columns(2)
    chart(
        left,
        plots.prior_mass_histogram,
        details["prior_true_mass_counts"],
        details["prior_true_mass_edges"],
        key="prior_mass",
    )
    left.caption(
        "How much probability each example's prior puts on its true label. Mass near 1 means the "
        "cluster is pure and the noise small; a uniform prior would put everything at "
        f"1/K = {1 / num_classes:.2f}. The true label is in the chosen set for "
        f"{details['true_in_set_rate']:.1%} of examples."
    )
    chart(right, plots.set_size_histogram, details["set_size_counts"], key="set_size")
    right.caption(
        "The number of labels RR chooses among. k* = 1 reports the prior's favourite outright; "
        f"k* = K = {num_classes} is plain RR. Smaller sets keep more labels, as long as the true "
        "label is still inside."
    )
    diagnostics_caption(st, [result])


def _comparison_configs(
    controls: Controls, settings: dict[str, dict]
) -> dict[str, list[RunConfig]]:
    """The three mechanisms' sweeps on the demo grid and seeds, by name (``settings`` by id)."""
    return {
        NAMES[mechanism]: sweep_configs(
            mechanism,
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            mechanism_settings,
        )
        for mechanism, mechanism_settings in settings.items()
    }


def _flip_rates(
    headline: DeltaGenerator,
    num_classes: int,
    found: dict,
    absent: list[RunConfig],
    epsilon: float,
    seed: int,
) -> None:
    """Draw into ``headline`` the three mechanisms' flip rates vs ε (``seed``'s runs), the button.

    One seed, not the seeds' mean: each run's dotted expectation is given the prior it drew.
    """
    chart(
        headline,
        plots.flip_rate_comparison,
        num_classes,
        found,
        marked_epsilon=epsilon,
        with_expected=(NAMES["rr-prior"], NAMES["lp-2st"]),
        key="flip_rates",
    )
    headline.caption(
        f"Share of released training labels that differ from the true ones, on seed {seed}: "
        "a run's expectation depends on the prior it drew. Plain RR follows its "
        "closed form; the two prior-based mechanisms have one only given the prior they drew "
        "(dotted). A good prior pulls the flip rate far below RR at small ε; LP-2ST's prior is "
        "only as good as its stage-1 model, which needs enough examples and budget to learn from "
        "noisy labels."
    )
    with reported_errors(), headline:
        compute_button(absent, "Run sweep", key="run_sweep")


def _accuracy_curve(
    controls: Controls,
    found: dict,
    absent: list[RunConfig],
    num_classes: int,
    epsilon: float,
) -> None:
    """Draw the three mechanisms' test accuracy vs ε with the clean model's line."""
    clean = page_clean_line(controls, [r for runs in found.values() for r in runs])
    chart(
        st,
        plots.score_vs_epsilon,
        found,
        clean.score,
        chance=1 / num_classes,
        marked_epsilon=epsilon,
        key="accuracy_curve",
    )
    st.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)} of a model trained on labels "
        "released at that total ε and scored on clean test labels, the band the lowest to the "
        "highest seed; the dashed line is the same model trained on the true "
        f"labels ({clean.words}). Fewer flipped labels usually means a better model, but a "
        "confident wrong prior flips labels towards plausible mistakes, which hurt more than "
        "random ones. "
        + (
            f"{len(absent)} points are not computed yet; the button trains them and caches each "
            "one."
            if absent
            else "Every point of these curves is cached."
        )
    )


def _lp_2st_stages(stages: RunResult, epsilon: float) -> None:
    """Draw LP-2ST's run stage by stage: each stage's flip rate and the stage-1 model."""
    st.subheader(f"LP-2ST at ε = {epsilon:g}, stage by stage")
    stage = stages.details
    cols = st.columns(3)
    cols[0].metric(
        "Stage 1 flip rate (RR)",
        score_text(stage["stage1_flip_rate"]),
        f"{stage['stage1_examples']:,} labels",
        delta_color="off",
    )
    cols[1].metric("Stage-1 model accuracy", score_text(stage["stage1_test_accuracy"]))
    cols[2].metric(
        "Stage 2 flip rate",
        score_text(stage["stage2_flip_rate"]),
        f"{stage['stage2_examples']:,} labels",
        delta_color="off",
        help="RR with the stage-1 model's prior",
    )
    diagnostics_caption(st, [stages])
    st.caption(
        "Stage 1 spends ε on the first part with plain RR (or RR with a cluster prior) and "
        "trains a model; that model's softmax is the prior for the second part. Each part's "
        "labels are released once at ε, so the run is ε-label-DP by parallel composition."
    )


render()
