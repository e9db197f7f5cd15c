"""Laplace on labels: what the model trains on, accuracy and MSE vs epsilon, RR-on-bins' budget."""

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.accounting import split_budget_by_share
from labeldp_core.base.numbers import epsilon_text, in_words, shown, shown_spent
from labeldp_core.data import Dataset, load_dataset
from labeldp_core.engine.blocks.release_noise import histogram_split
from labeldp_core.experiments import RunConfig, RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.laplace_labels.audit_ceiling import argmax_epsilon
from labeldp_core.families.laplace_labels.experiment import expected_argmax_accuracy
from labeldp_core.families.laplace_labels.label_prior import PRIOR_STEP, split_from_table
from labeldp_core.families.laplace_labels.rr_bins_release import RRBins
from labeldp_core.mechanisms import (
    ONE_HOT_SENSITIVITY,
    alibi_posterior,
    laplace_one_hot,
    optimal_bins,
    post_process,
    set_keep_probability,
)
from labeldp_core.noise.noise_plans import laplace_plan
from labeldp_core.noise.secure_noise import SeededSource
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
)
from ui.risk import RiskOf
from ui.sweeps import compute_button, status_sentence

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("laplace"))
EXAMPLES = 5
CLASSIFIERS = {
    "Laplace, argmax": ("laplace", {"post": "argmax"}),
    "Laplace, clamp + renormalise": ("laplace", {"post": "soft"}),
    "Laplace, clamp + round": ("laplace", {"post": "round"}),
    "ALIBI": ("alibi", {}),
}
REGRESSORS = {"Laplace, clamped": ("laplace-regression", {}), "RR-on-bins": ("rr-bins", {})}


def colour_ids(table: dict) -> dict[str, str]:
    """Each series' colour id: its mechanism, and its variant ("laplace/soft"), never its place."""
    return {
        name: "/".join([mechanism, *map(str, settings.values())])
        for name, (mechanism, settings) in table.items()
    }


def shown_budget(rows: list[dict]) -> list[dict]:
    """Budget rows with ε written to 6 significant digits (0.9, not 0.8999999999999999).

    For display only: the stored numbers stay exact.
    """
    return [row | {"epsilon": epsilon_text(row["epsilon"], digits=6)} for row in rows]


def render() -> None:
    """Draw the page: ε, the noisy targets under it, the run, accuracy and MSE vs ε, RR-on-bins."""
    controls = current_controls()
    st.title("Laplace on labels")
    control = st.container()  # the ε control, drawn once the settings below are known
    data = load_dataset(controls.dataset)
    k = data.num_classes
    values = data.class_values
    headline = st.container()  # what the model trains on, right under the ε control
    prior_kind, prior_share, noise = _release_controls()
    prior_settings = {"prior": prior_kind, "prior_share": float(prior_share)}
    noise_settings = {"noise": noise}
    with control:  # the slider stops where this page's points, with this noise, are cached
        epsilon = epsilon_control(
            grid=computed_stops("laplace", controls, controls.settings | noise_settings),
            risk=RiskOf(k),
        )
    _noisy_vectors(headline, controls, data, epsilon, noise)
    # The page's own point (argmax) at exactly this ε: cached at every stop of the slider, else its
    # button goes under the ε control. The sweeps below stay on the demo grid, which `warm` fills
    # for all four classifiers; an ε between their points adds only this one.
    with reported_errors():
        own = make_config(
            "laplace",
            controls.dataset,
            epsilon,
            controls.seed,
            controls.epochs_asked,
            controls.settings | noise_settings,
        )
        result = result_for(
            own,
            f"Compute ε = {epsilon:g} on {controls.dataset_name}",
            "Training on released labels",
        )
    _explain(values)
    sweeps = (controls, prior_settings, noise_settings)
    _classification(sweeps, result, epsilon, k)
    with reported_errors():
        swept = table_configs(CLASSIFIERS, "alibi", sweeps)
    classifiers = {n: [c for c in cs if c.seed == controls.seed] for n, cs in swept.items()}
    consensus_section(  # paired with the run above
        classifiers, epsilon, 1 / k, mechanisms=colour_ids(CLASSIFIERS)
    )
    regression = _regression(sweeps, epsilon)
    empirical = np.bincount(data.y_train, minlength=k) / data.n_train
    left, right = st.columns(2)
    chart(left, plots.expected_label_mse_figure, empirical, epsilon, values, key="label_mse")
    left.caption(
        "The error of the released training labels themselves, in closed form, for this "
        "dataset's label frequencies. Laplace noise of scale (K−1)/ε is far too wide at small ε "
        "and is mostly clamped to the ends; RR-on-bins never does worse than always releasing "
        "the mean."
    )
    rr_run = next(
        (r for r in regression["RR-on-bins"] if (r.epsilon, r.seed) == (epsilon, controls.seed)),
        None,
    )
    _rr_bins(right, rr_run, data, epsilon, prior_settings, noise)


def _explain(values: np.ndarray) -> None:
    """Say in a few sentences what the mechanism releases, for classes and for numbers."""
    st.markdown(
        "Each training label becomes its one-hot vector plus Laplace noise of scale 2/ε on every "
        "coordinate (two one-hot vectors differ by 2 in L1), which is ε-label-DP. Anything "
        "computed from a noisy vector alone is free: its argmax, a clamped soft label, a rounded "
        "0/1 vector, or ALIBI's Bayesian posterior over the classes. For regression the label "
        f"value in {values[0]:g}..{values[-1]:g} gets noise of scale (high−low)/ε = "
        f"{values[-1] - values[0]:g}/ε and is clamped; RR-on-bins instead releases one of a few "
        "output values chosen to minimise the expected squared error."
    )


def _release_controls() -> tuple[str, float, str]:
    """Draw the prior of ALIBI and RR-on-bins, the histogram's share of ε and the noise mode.

    Returns:
        The prior's kind, the share of ε spent on the histogram, and the noise mode.
    """
    left, middle, right = st.columns(3)
    prior_kind = linked(
        left.selectbox,
        "Prior for ALIBI and RR-on-bins",
        "prior",
        ["uniform", "histogram"],
        help="uniform is free; histogram is a noisy histogram of the training labels, paid from ε",
    )
    prior_share = middle.number_input(
        "Share of ε spent on the histogram",
        min_value=0.01,
        max_value=0.9,
        value=0.1,
        step=0.05,
        key="prior_share",
        bind="query-params",
        disabled=prior_kind == "uniform",
    )
    noise = noise_control(right)
    return prior_kind, prior_share, noise


def _noisy_vectors(
    headline: DeltaGenerator, controls: Controls, data: Dataset, epsilon: float, noise: str
) -> None:
    """Draw into ``headline`` the first training labels made noisy and each target made of them."""
    k = data.num_classes
    examples = data.y_train[:EXAMPLES]
    rng = np.random.default_rng(controls.seed)
    with reported_errors():
        plan = laplace_plan(ONE_HOT_SENSITIVITY, epsilon, noise)
        accuracy = expected_argmax_accuracy(plan, k) or 1 / k
        exact = f"exact discrete scale {plan.exact_scale}"
        scale_text = exact if plan.secure else f"noise scale {plan.scale:.3g}"
    # An illustration: secure noise here is seeded (SeededSource) so the panels follow the seed.
    noisy = laplace_one_hot(
        examples, epsilon, k, rng, noise=noise, source=SeededSource(controls.seed)
    )
    tie_breaker = rng if noise == "secure" else None
    panels = {
        "noisy vector": noisy,
        "argmax": np.eye(k)[post_process(noisy, "argmax", tie_breaker)],
        "clamp + renormalise": post_process(noisy, "soft"),
        "clamp + round": post_process(noisy, "round"),
        "ALIBI posterior": alibi_posterior(noisy, plan.epsilon_spent, scale=plan.scale),
    }
    chart(headline, plots.noisy_vectors_figure, examples, panels, data.class_names, key="vectors")
    headline.caption(
        f"The first {EXAMPLES} training labels at ε = {epsilon:g} ({scale_text}); "
        "each panel is one way to turn the noisy vector into a training target, the ALIBI panel "
        "with a uniform prior. At small ε the true class is rarely the largest coordinate, so "
        f"argmax labels are right with probability {accuracy:.2f} (1/K = {1 / k:.2f})"
        + _argmax_words(accuracy, k)
        + "; soft targets keep some of the evidence that argmax throws away."
        + (
            " With secure noise the vectors are integers: clamping keeps only the coordinates that "
            "reached 1, and argmax breaks ties at random."
            if noise == "secure"
            else ""
        )
    )


def _argmax_words(accuracy: float, k: int) -> str:
    """What argmax labels spend: K-ary randomized response at ε′, the model audit's claim."""
    if not 1 / k < accuracy < 1:
        return ""
    spent = epsilon_text(argmax_epsilon(accuracy, k))
    return (
        " and each other label equally often: randomized response at ε′ = "
        f"{spent}, less than ε, the claim the trained model's audit holds it to"
    )


def sweep_series(
    table: dict, prior_mechanism: str, sweeps: tuple[Controls, dict, dict]
) -> tuple[dict, list]:
    """Cached results per legend name of ``table``, and the configs still missing.

    Args:
        table: legend name to (mechanism, settings), as :data:`CLASSIFIERS`.
        prior_mechanism: the mechanism of ``table`` that takes the prior's settings.
        sweeps: the shared controls, the prior's settings and the noise's settings.
    """
    return stored_series(table_configs(table, prior_mechanism, sweeps))


def table_configs(
    table: dict, prior_mechanism: str, sweeps: tuple[Controls, dict, dict]
) -> dict[str, list[RunConfig]]:
    """The demo grid's and seeds' configs per legend name of ``table`` (as :func:`sweep_series`)."""
    controls, prior_settings, noise_settings = sweeps
    configs = {}
    for name, (mechanism, settings) in table.items():
        extra = prior_settings if mechanism == prior_mechanism else {}
        configs[name] = sweep_configs(
            mechanism,
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            controls.settings | settings | extra | noise_settings,
        )
    return configs


def _classification(
    sweeps: tuple[Controls, dict, dict], result: RunResult | None, epsilon: float, k: int
) -> None:
    """Draw test accuracy vs ε of the four classifiers, then their numbers at ``epsilon``."""
    st.subheader("Classification: test accuracy vs ε")
    with reported_errors():
        series, missing = sweep_series(CLASSIFIERS, "alibi", sweeps)
        compute_button(missing, "Run classification sweep", "run_classification")
    found = [r for results in series.values() for r in results]
    clean = page_clean_line(sweeps[0], found)
    chart(
        st,
        plots.score_vs_epsilon,
        series,
        clean.score,
        chance=1 / k,
        marked_epsilon=epsilon,
        mechanisms=colour_ids(CLASSIFIERS),
        key="accuracy",
    )
    st.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)} of a model trained on targets "
        "released at that ε and scored on clean test labels, the band the lowest to the highest "
        f"seed; the dashed line is the same model trained on the true labels ({clean.words}). "
        "All four use the "
        "same noise, so their differences come only from what is done with the noisy vector. "
        + status_sentence(missing)
    )
    _numbers_at(series, result, epsilon, sweeps[0].seed)
    diagnostics_caption(st, found)


def _numbers_at(series: dict, result: RunResult | None, epsilon: float, seed: int) -> None:
    """Draw the table of the classifiers' runs at ``epsilon`` on ``seed`` (the page's run too)."""
    own = {
        name: [r for r in results if (r.epsilon, r.seed) == (epsilon, seed)]
        for name, results in series.items()
    }
    if result is not None and not own["Laplace, argmax"]:  # the page's point, off the grid
        own["Laplace, argmax"] = [result]
    at_epsilon = [
        {
            "mechanism": name,
            "test accuracy": shown(r.test_accuracy),
            "label accuracy": shown(r.label_accuracy),
            "ε spent": shown_spent(r.epsilon_spent, r.epsilon),
        }
        for name, results in own.items()
        for r in results
    ]
    if at_epsilon:
        st.markdown(
            f"**At ε = {epsilon:g}, seed {seed}** (label accuracy: mean probability the target "
            "gives the true label)"
        )
        st.dataframe(at_epsilon, hide_index=True, key="accuracy_table")


def _regression(sweeps: tuple[Controls, dict, dict], epsilon: float) -> dict:
    """Draw test MSE vs ε of the two regressors; return their stored results by legend name."""
    st.subheader("Regression: test MSE vs ε")
    with reported_errors():
        regression, missing = sweep_series(REGRESSORS, "rr-bins", sweeps)
        compute_button(missing, "Run regression sweep", "run_regression")
    done = [r for results in regression.values() for r in results]
    baselines = {"clean labels": done[0].baseline_test_mse} if done else {}
    chart(st, plots.mse_vs_epsilon, regression, baselines, epsilon, key="mse")
    st.caption(
        f"Test MSE of a regression head predicting the label value, the mean over seeds "
        f"{in_words(DEMO_SEEDS)}, on log-log axes; the dashed "
        "lines are least-squares power laws MSE ≈ c·ε^s, with the slope s in the legend. The "
        "dotted line is the same model on clean values. " + status_sentence(missing)
    )
    return regression


def _bins(
    rr_run: RunResult | None, data: Dataset, epsilon: float, prior_settings: dict, noise: str
) -> tuple:
    """RR-on-bins' budget split and bins at ``epsilon``: the run's if stored, else planned.

    Returns:
        The split of ε, the bins, and a phrase saying where the bins come from.
    """
    values, k = data.class_values, data.num_classes
    if rr_run is not None:
        # The release had exactly what the histogram left of ε (more than planned with secure
        # noise).
        split = split_from_table(rr_run.epsilon, rr_run.details["budget"])
        bins = RRBins(
            values,
            np.asarray(rr_run.details["bin_of_value"]),
            np.asarray(rr_run.details["bin_outputs"]),
            split.release_epsilon,
        )
        return split, bins, "the bins of the computed run (its prior)"
    share = prior_settings["prior_share"] if prior_settings["prior"] == "histogram" else 0.0
    split, _ = histogram_split(split_budget_by_share(epsilon, share), noise)
    bins = optimal_bins(values, np.full(k, 1.0 / k), split.release_epsilon)
    return split, bins, "bins for a uniform prior (run this ε to see the prior the run estimated)"


def _rr_bins(
    right: DeltaGenerator,
    rr_run: RunResult | None,
    data: Dataset,
    epsilon: float,
    prior_settings: dict,
    noise: str,
) -> None:
    """Draw RR-on-bins' bins at ``epsilon`` into ``right``, then its budget, spent or planned."""
    split, bins, source = _bins(rr_run, data, epsilon, prior_settings, noise)
    chart(right, plots.rr_bins_figure, bins, key="bins")
    keep = float(set_keep_probability(bins.num_bins, split.release_epsilon))
    paid = (
        f", after the histogram's {epsilon_text(split.prior_epsilon, digits=6)}"
        if split.prior_epsilon
        else ""
    )
    right.caption(
        f"RR-on-bins at ε_release = {epsilon_text(split.release_epsilon, digits=6)} "
        f"(of ε = {epsilon:g}{paid}), "
        f"{source}: a label is sent to its bin's output value with probability "
        f"e^ε_release/(e^ε_release+m−1) = {keep:.3f} for m = {bins.num_bins} bins, and to another "
        "bin's otherwise. With few bins the output is coarse but rarely far off; as ε grows the "
        "bins split until every value is its own bin."
    )
    if rr_run is not None:
        budget, spent_by = rr_run.details["budget"], "as the computed run spent it"
    else:
        planned = [
            {"step": PRIOR_STEP, "epsilon": split.prior_epsilon},
            {"step": "release: randomized response over bins", "epsilon": split.release_epsilon},
            {"step": "total (sequential composition)", "epsilon": split.spent},
        ]
        budget, spent_by = planned[0 if split.prior_epsilon else 1 :], "planned (not computed yet)"
    st.markdown(
        f"**RR-on-bins budget at this ε, {spent_by}** (sequential composition: the steps add up)"
    )
    st.table(shown_budget(budget))


render()
