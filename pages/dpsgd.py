"""DP-SGD baseline: the noise a budget implies, the budget a run spends, and label DP alongside."""

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.accounting import calibrate_noise_multiplier
from labeldp_core.accounting.dpsgd import sampling_schedule
from labeldp_core.accounting.units import EXAMPLE_TO_LABEL
from labeldp_core.base.numbers import epsilon_text, in_words, score_change, score_text
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import MECHANISMS, RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.dpsgd.experiment import RECIPE_SOURCE, budget_outlook, delta_warning
from labeldp_core.plots_base.common import UNIT_SCALE_NOTE
from ui.controls import Controls, current_controls
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import (
    computed_stops,
    replay_caption,
    reported_errors,
    result_for,
    stored_many,
)
from ui.risk import RiskOf
from ui.sweeps import compute_button

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("dpsgd"))
UNITS_SENTENCE = (
    "DP-SGD protects whole examples (image and label; add/remove one example) while label DP "
    "protects only labels (replace-one label), so the numbers are not directly comparable: "
    "DP-SGD's ε also covers the image. " + EXAMPLE_TO_LABEL
)


@st.cache_data(show_spinner=False)
def implied_noise(epsilon: float, delta: float, q: float, steps: int, accountant: str) -> float:
    return calibrate_noise_multiplier(epsilon, delta, q, steps, accountant)


@st.cache_data(show_spinner=False)
def outlook(sigma: float, q: float, steps_per_epoch: int, epochs: int, delta: float) -> dict:
    return budget_outlook(sigma, q, steps_per_epoch, epochs, delta)


@dataclass(frozen=True)
class Schedule:
    """What a DP-SGD run at the page's ε does: its data, batches, steps and noise.

    Attributes:
        n_train: training examples.
        batch: expected batch size.
        epochs: epochs planned.
        q: the sample rate of a step.
        steps: noisy steps in all.
        sigma: the noise multiplier (the run's, else implied by ε with RDP).
        shown_by: the accountant that found ``sigma``.
    """

    n_train: int
    batch: int
    epochs: int
    q: float
    steps: int
    sigma: float
    shown_by: str


def render() -> None:
    """Draw the page: ε, the budget outlook under it, the noise, one run, then accuracy vs ε."""
    controls = current_controls()
    st.title("DP-SGD baseline")
    control = st.container()  # the ε control, drawn once the settings below are known
    headline = st.container()  # the budget a longer run costs, right under the ε control
    st.markdown(
        "DP-SGD trains on the true labels but hides every example: each step samples every "
        "training example with probability q, clips each sampled example's gradient to norm C, "
        "and adds Gaussian noise of standard deviation σ·C to their sum. An accountant turns σ, q "
        "and the number of steps into (ε, δ)-DP for **adding or removing one whole example**, "
        "image and label together. " + UNIT_SCALE_NOTE
    )
    settings, accountant, delta = _settings(controls)
    with control:  # the slider stops where this page's own points, with these settings, are cached
        epsilon = epsilon_control(
            grid=computed_stops("dpsgd", controls, settings),
            risk=RiskOf(dataset_info(controls.dataset).num_classes, "example"),
        )
    schedule, result = _schedule(controls, settings, epsilon, accountant, delta)
    st.caption(
        f"The defaults are a published recipe, not tuned here: {RECIPE_SOURCE}. Choosing "
        "settings by trying them on the private data would leak it (each try is one more release "
        "that no accountant here records), so the recipe was fixed from the papers, and the "
        "settings you change are yours to account for."
    )
    _noise(schedule, epsilon, delta, accountant)
    _budget_curve(headline, schedule, result, epsilon, delta, accountant)
    _one_run(result, epsilon)
    _accuracy_by_unit(controls, settings, epsilon, delta)


def _settings(controls: Controls) -> tuple[dict, str, float]:
    """Draw the clipping norm, the batch size, the accountant and δ, the recipe's by default.

    Returns:
        The run's settings (the shared ones and those changed from the recipe), the accountant
        and δ.
    """
    recipe = dict(make_config("dpsgd", controls.dataset, 1.0).settings)  # the same at every ε
    left, middle, right, last = st.columns(4)
    # Options are shown (and written in the link) as they are: "recipe" is this dataset's recipe.
    clip = linked(
        left.selectbox,
        f"Clipping norm C (recipe: {recipe['clip']:g})",
        "clip",
        ("recipe", 0.05, 0.1, 0.5, 1.0, 2.0, 5.0),
    )
    batch = linked(
        middle.selectbox,
        f"Expected batch size (recipe: {recipe['batch']:,})",
        "batch",
        ("recipe", 64, 128, 256, 512, 1024, 2048, 4096),
    )
    accountant = linked(
        right.selectbox,
        "Accountant",
        "accountant",
        ("rdp", "prv"),
        help="rdp: Rényi DP, fast and a little loose. prv: numerical composition of privacy loss "
        "random variables, tighter and slower.",
    )
    delta = linked(
        last.selectbox,
        "δ",
        "delta",
        (1e-5, 1e-6, 1e-4, 1e-3),
        help="Chance that the ε promise fails; keep it well below 1/n.",
    )
    chosen = {"clip": clip, "batch": batch, "accountant": accountant, "delta": delta}
    return controls.settings | {k: v for k, v in chosen.items() if v != "recipe"}, accountant, delta


def _schedule(
    controls: Controls, settings: dict, epsilon: float, accountant: str, delta: float
) -> tuple[Schedule, RunResult | None]:
    """The run at ``epsilon`` (if stored, else its button) and its schedule and noise."""
    with reported_errors():
        config = make_config(
            "dpsgd", controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        )
        n_train = load_dataset(controls.dataset).n_train
        batch, epochs = config.setting("batch"), config.epochs
        q, steps = sampling_schedule(n_train, batch, epochs)
        # Before the charts, so that a run trained now draws its own budget line at once.
        result = result_for(
            config,
            f"Train with DP-SGD at ε = {epsilon:g} on {controls.dataset_name}",
            "Training with DP-SGD",
        )
        # Without a run, σ is found with RDP (milliseconds): PRV over thousands of steps can take
        # minutes and gigabytes, so it runs only inside a training someone asked for.
        shown_by = accountant if result is not None else "rdp"
        if result is not None:
            sigma = result.details["noise_multiplier"]
        else:
            with st.spinner(f"Finding the noise multiplier for ε = {epsilon:g} (RDP)"):
                sigma = implied_noise(epsilon, delta, q, steps, "rdp")
    return Schedule(n_train, batch, epochs, q, steps, sigma, shown_by), result


def _epochs_text(epochs: int) -> str:
    """``epochs`` in words: "1 epoch", "40 epochs"."""
    return f"{epochs} epoch{'s' * (epochs != 1)}"


def _noise(schedule: Schedule, epsilon: float, delta: float, accountant: str) -> None:
    """Draw the noise multiplier ε implies with its schedule, and warn of a weak δ."""
    n_train, batch, epochs = schedule.n_train, schedule.batch, schedule.epochs
    q, steps, sigma, shown_by = schedule.q, schedule.steps, schedule.sigma, schedule.shown_by
    if (weak := delta_warning(delta, n_train)) is not None:
        st.warning(f"Weak guarantee: {weak}.", icon="⚠️")
    cols = st.columns(4)
    cols[0].metric("Noise multiplier σ", f"{sigma:.3g}", help="implied by ε, δ, q and the steps")
    cols[1].metric("Sample rate q", f"{q:.3g}")
    cols[2].metric("Noisy steps", f"{steps:,}")
    cols[3].metric("δ", f"{delta:g}")
    epochs_text = _epochs_text(epochs)
    st.caption(
        f"To spend at most ε = {epsilon:g} (δ = {delta:g}) over {epochs_text} of "
        f"{steps // epochs} steps with a batch of about {batch} out of {n_train:,} examples, "
        f"every step needs noise of σ = {sigma:.3g} times the clipping norm "
        f"({shown_by.upper()} accountant"
        + (
            "; a training calibrates with PRV, a little less noise"
            if shown_by != accountant
            else ""
        )
        + ")."
    )


def _budget_curve(
    headline: DeltaGenerator,
    schedule: Schedule,
    result: RunResult | None,
    epsilon: float,
    delta: float,
    accountant: str,
) -> None:
    """Draw into ``headline`` the ε spent by epoch at several noise levels, the run's own too."""
    q, steps, epochs, sigma = schedule.q, schedule.steps, schedule.epochs, schedule.sigma
    # A run carries its outlook; otherwise the accountant computes it here.
    if result is not None:
        curves = result.details["budget_outlook"]
    else:
        with st.spinner("Accounting"):
            curves = outlook(sigma, q, steps // epochs, epochs, delta)
    by_epoch = None if result is None else result.details["epsilon_by_epoch"]
    chart(
        headline,
        plots.epsilon_vs_epochs,
        curves["epochs"],
        dict(zip(curves["noise_multipliers"], curves["epsilons"], strict=True)),
        target_epsilon=epsilon,
        chosen=round(sigma, 4),
        planned_epochs=epochs,
        delta=delta,
        accountant=accountant,
        run_epsilons=None if by_epoch is None else (by_epoch["epochs"], by_epoch[accountant]),
        key="budget_curve",
    )
    headline.caption(
        "Each line is the ε spent after that many epochs at a fixed noise multiplier, for this "
        "dataset and batch size, by the RDP accountant (fast, an upper bound). The budget keeps "
        "growing with every step, roughly like the square root of the number of steps, and less "
        "noise costs far more. "
        + _own_line(accountant, epsilon, _epochs_text(epochs), by_epoch is not None)
    )


def _own_line(accountant: str, epsilon: float, epochs_text: str, run_drawn: bool) -> str:
    """The sentence that says which line of the budget chart is this run's σ."""
    if accountant == "rdp":
        return (
            f"The thick line is the σ that lands on ε = {epsilon:g} after {epochs_text}; past the "
            "dashed line it shows what training on would spend."
        )
    own = accountant.upper()
    return (
        f"This run's σ was calibrated with {own}, which is usually tighter, so the RDP line at "
        f"its σ is only a bound and ends away from (usually above) ε = {epsilon:g}; "
        + (
            f"the thick line is the run's own {own} ε, which lands on the target after "
            f"{epochs_text}."
            if run_drawn
            else f"the run's own {own} line is drawn once the run is trained."
        )
    )


def _one_run(result: RunResult | None, epsilon: float) -> None:
    """Draw the run: its accuracy and ε by both accountants, epoch by epoch (or a hint)."""
    st.subheader("One run")
    if result is None:
        st.info("Not computed yet: the button under the ε control trains it; it is then cached.")
        return
    details = result.details
    by_epoch = details["epsilon_by_epoch"]
    cols = st.columns(4)
    cols[0].metric(
        "Test accuracy",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, result.baseline_test_accuracy, "vs non-DP"),
    )
    cols[1].metric(
        "ε spent",
        epsilon_text(result.epsilon_spent, result.epsilon),
        help="example-level, add/remove",
    )
    for col, name in zip(cols[2:], ("rdp", "prv"), strict=True):
        value = details[f"epsilon_{name}"]
        col.metric(
            f"ε by {name.upper()}", "n/a" if value is None else epsilon_text(value, result.epsilon)
        )
    st.caption(f"**What ε covers:** {details['guarantee_scope']}.")
    replay_caption(st, result)
    chart(
        st,
        plots.accountant_comparison,
        by_epoch["epochs"],
        {k: by_epoch[k] for k in ("rdp", "prv")},
        used=details["accountant"],
        delta=result.delta,
        key="accountants",
    )
    st.caption(
        "Both lines account for exactly the same noisy steps of this run. PRV composes the "
        "privacy loss numerically and is tighter; RDP is cheaper and a little pessimistic. The "
        f"run was calibrated with {details['accountant'].upper()}, so that line ends at or just "
        f"under ε = {epsilon:g}; the other accountant would have allowed "
        + ("less" if details["accountant"] == "rdp" else "more")
        + " noise for the same promise."
    )


def _other_label_dp(controls: Controls) -> dict[str, list[RunResult]]:
    """The other label-DP classifiers' stored points for this dataset and model, by legend name."""
    series = {}
    for spec in MECHANISMS.values():
        if (spec.privacy_unit, spec.task, spec.trains_model) != ("label", "classification", True):
            continue
        if spec.id == "rr":
            continue
        try:
            others = sweep_configs(
                spec.id,
                controls.dataset,
                list(demo_epsilons(spec.id)),
                DEMO_SEEDS,
                controls.epochs_asked,
                controls.settings,
            )
        except LabelDPError:  # its defaults do not fit this dataset; nothing of it to show
            continue
        found, _ = stored_many(others)
        if found:
            series[f"{spec.title}: ε per label (replace-one)"] = found
    return series


def _accuracy_by_unit(controls: Controls, settings: dict, epsilon: float, delta: float) -> None:
    """Draw test accuracy vs ε of DP-SGD beside randomized response and the other label DP."""
    st.subheader("Test accuracy vs ε, next to label DP")
    num_classes = dataset_info(controls.dataset).num_classes
    with reported_errors():
        dpsgd_configs = sweep_configs(
            "dpsgd",
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            settings,
        )
        rr_configs = sweep_configs(
            "rr",
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            controls.settings,
        )
        dpsgd_found, dpsgd_absent = stored_many(dpsgd_configs)
        rr_found, rr_absent = stored_many(rr_configs)
        absent = dpsgd_absent + rr_absent
        compute_button(absent, "Run sweep", key="run_sweep")
    series = {
        f"DP-SGD: ε per example (add/remove), δ = {delta:g}": dpsgd_found,
        "Randomized response: ε per label (replace-one)": rr_found,
    }
    # Other label-DP mechanisms appear when their points for this dataset and model are cached.
    series |= _other_label_dp(controls)
    baseline = next((r.baseline_test_accuracy for r in dpsgd_found + rr_found), None)
    chart(
        st,
        plots.accuracy_by_privacy_unit,
        series,
        baseline,
        chance=1 / num_classes,
        marked_epsilon=epsilon,
        key="accuracy_by_unit",
    )
    st.caption(
        UNITS_SENTENCE
        + f" Each point is the mean over seeds {in_words(DEMO_SEEDS)} on the same dataset, scored "
        "on the clean test set, the band the lowest to the highest seed. DP-SGD trains "
        "the recipe's tanh twin of the chosen model for the recipe's epochs (with 'auto' epochs), "
        "the label-DP mechanisms the chosen model as it is; the dashed line is the chosen model "
        "trained without any privacy. "
        + (
            f"{len(absent)} points are not computed yet; the button trains them and caches each "
            "one."
            if absent
            else "Every DP-SGD and randomized-response point of this chart is cached."
        )
    )


render()
