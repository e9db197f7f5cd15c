"""Randomized response: keep/flip probabilities, released labels, accuracy vs epsilon."""

import math

import streamlit as st

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text, in_words, score_change, score_text
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.experiments import RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.mechanisms import expected_flip_rate
from ui.clean import page_clean_line
from ui.consensus import consensus_section
from ui.controls import Controls, current_controls, noise_control
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.results import (
    computed_stops,
    diagnostics_caption,
    point_under_headline,
    reported_errors,
    stored_many,
)
from ui.risk import RiskOf
from ui.sweeps import compute_button, status_sentence

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("rr"))


def render() -> None:
    """Draw the page: ε and the keep/flip curve, the released labels, then accuracy vs ε."""
    controls = current_controls()
    st.title("Randomized response")
    settings = controls.settings | {"noise": noise_control()}  # in the sidebar
    num_classes = dataset_info(controls.dataset).num_classes
    epsilon = epsilon_control(
        grid=computed_stops("rr", controls, settings), risk=RiskOf(num_classes)
    )
    result = _headline(controls, settings, num_classes, epsilon)
    measured = "The cross is the flip rate measured in this run; it sits on the curve up to noise. "
    st.caption(
        f"At ε = {epsilon:g} a label survives with probability "
        f"{1 - expected_flip_rate(epsilon, num_classes):.3f}. "
        + ("" if result is None else measured)
        + f"With K = {num_classes} classes keep and flip cross at ε = ln(K − 1) ≈ "
        f"{math.log(num_classes - 1):.2g}: below it most labels are flipped, yet with enough data "
        "a model still learns, because the true label stays the most likely one at every ε."
    )
    _released_labels(controls, result, epsilon, num_classes)
    st.markdown(
        "Each training label is kept with probability e^ε/(e^ε+K−1) and otherwise replaced by one "
        "of the other K−1 labels, chosen uniformly. Changing one true label changes the chance of "
        "any released label by at most a factor e^ε, so the released labels are ε-label-DP "
        "(replace-one neighbours), and so is any model trained on them."
    )
    _accuracy_curve(controls, settings, epsilon, num_classes, result)


def _headline(
    controls: Controls, settings: dict, num_classes: int, epsilon: float
) -> RunResult | None:
    """Draw the keep/flip curve at once, then the run at ``epsilon`` if stored; return that run.

    The curve is closed-form, so it shows before any training; a stored run redraws it with the
    flip rate it measured as a cross.
    """

    def headline(result: RunResult | None) -> None:  # a run adds its measured cross
        if result is None:
            chart(st, plots.keep_flip_curve, num_classes, epsilon, key="keep_flip_closed_form")
        else:
            chart(
                st, plots.keep_flip_curve, num_classes, epsilon, result.flip_rate, key="keep_flip"
            )

    return point_under_headline(
        headline,
        lambda: make_config(
            "rr", controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        ),
        f"Compute ε = {epsilon:g} on {controls.dataset_name}",
        "Training on released labels",
    )


def _released_labels(
    controls: Controls, result: RunResult | None, epsilon: float, num_classes: int
) -> None:
    """Draw the run's confusion of true and released labels and its four metrics, or a hint."""
    left, right = st.columns(2)
    if result is None:
        left.info(f"Not computed yet at ε = {epsilon:g}: the button under the ε control trains it.")
        return
    chart(
        left,
        plots.label_heatmap,
        result.details["confusion"],
        load_dataset(controls.dataset).class_names,
        key="heatmap",
    )
    right.caption(
        "Each row is one true label; the diagonal is the share kept. Off the diagonal the noise is "
        "spread evenly: randomized response has no idea which wrong label is plausible."
    )
    cols = st.columns(4)
    cols[0].metric(
        "Measured flip rate",
        score_text(result.flip_rate),
        score_change(result.flip_rate, expected_flip_rate(epsilon, num_classes), "vs expected"),
        delta_color="off",
    )
    cols[1].metric(
        "Test accuracy",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, result.baseline_test_accuracy, "vs clean"),
    )
    cols[2].metric(
        "ε spent", epsilon_text(result.epsilon_spent, result.epsilon), help="label-DP, replace-one"
    )
    cols[3].metric("Training labels", f"{result.n_train:,}")
    st.caption(
        f"These numbers are the run on seed {result.seed}; the accuracy curve below is the mean "
        f"over seeds {in_words(DEMO_SEEDS)}."
    )
    diagnostics_caption(st, [result])


def _accuracy_curve(
    controls: Controls,
    settings: dict,
    epsilon: float,
    num_classes: int,
    result: RunResult | None,
) -> None:
    """Draw test accuracy vs ε over the demo grid and seeds, with its button and the clean line.

    The curve is the mean over the demo seeds with their band, as on Compare; the run above
    (one seed) is drawn by the sections before.
    """
    st.subheader("Test accuracy vs ε")
    with reported_errors():
        configs = sweep_configs(
            "rr", controls.dataset, SWEEP_EPSILONS, DEMO_SEEDS, controls.epochs_asked, settings
        )
        found, absent = stored_many(configs)
        compute_button(absent, "Run sweep", key="run_sweep")
    clean = page_clean_line(controls, found)
    chart(
        st,
        plots.score_vs_epsilon,
        {"randomized response": found},
        clean.score,
        chance=1 / num_classes,
        marked_epsilon=epsilon,
        key="accuracy_curve",
    )
    st.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)} of a model trained on "
        "labels released at that ε and scored on clean test labels, the band the lowest to the "
        "highest seed (as on Compare); the dashed line is the same model trained on the true "
        f"labels ({clean.words}). " + status_sentence(absent)
    )
    names = {"randomized response": "rr"}
    own_seed = [c for c in configs if c.seed == controls.seed]  # paired with the run above
    consensus_section({"randomized response": own_seed}, epsilon, 1 / num_classes, mechanisms=names)


render()
