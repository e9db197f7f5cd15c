"""Noisy model outputs (local DP): cluster quality and argmax agreement vs epsilon, a 2-D view."""

import math

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.base.numbers import score_change, score_text
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.experiments import RunConfig, RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import demo_epsilons
from labeldp_core.mechanisms import (
    PROBABILITY_SENSITIVITY,
    actual_epsilon,
    epsilon_for_output_noise,
)
from ui.controls import Controls, current_controls
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.results import (
    computed_stops,
    diagnostics_caption,
    replay_caption,
    reported_errors,
    result_for,
    stored_many,
)
from ui.risk import RiskOf
from ui.sweeps import compute_button, status_sentence

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("softmax-laplace"))


def render() -> None:
    """Draw the page: ε, cluster quality under it, the run's metrics and 2-D view, the maths."""
    controls = current_controls()
    st.title("Noisy model outputs (local DP)")
    epsilon = epsilon_control(
        grid=computed_stops("softmax-laplace", controls),
        risk=RiskOf(dataset_info(controls.dataset).num_classes, "output"),
    )
    headline = st.container()  # cluster quality vs ε, right under the ε control
    st.markdown(
        "Here the privacy unit is **one output vector**, not a training label: a trained model's "
        "softmax output for a query gets Laplace noise on every coordinate before it is released, "
        "so whoever receives it learns little about what the model answered (local DP). Two "
        "probability vectors differ by at most 2 in L1, so the scale is 2/ε. This protects the "
        "answers, not the training data: the model itself was trained on clean labels."
    )
    current, found, absent = _stored_points(controls, epsilon)
    if current is not None:
        _metrics(current)
    _headline(headline, found, absent, epsilon)
    if current is not None:
        _projection(controls, current, epsilon)
    _wrong_sensitivity(epsilon)
    _epsilon_for_noise()


def _stored_points(
    controls: Controls, epsilon: float
) -> tuple[RunResult | None, list[RunResult], list[RunConfig]]:
    """The run at ``epsilon`` (if stored), the sweep's stored points with it, those not yet."""
    with reported_errors():
        config = make_config(
            "softmax-laplace",
            controls.dataset,
            epsilon,
            controls.seed,
            controls.epochs_asked,
            controls.settings,
        )
        current = result_for(
            config, f"Compute ε = {epsilon:g} on {controls.dataset_name}", "Noisy outputs"
        )
        configs = sweep_configs(
            "softmax-laplace",
            controls.dataset,
            SWEEP_EPSILONS,
            [controls.seed],
            controls.epochs_asked,
            controls.settings,
        )
        found, absent = stored_many(configs)
    if current is not None and current.epsilon not in SWEEP_EPSILONS:
        found = sorted([*found, current], key=lambda r: r.epsilon)
    return current, found, absent


def _metrics(current: RunResult) -> None:
    """Draw the run's argmax agreement, cluster quality, ε spent, and what they are."""
    d = current.details
    cols = st.columns(4)
    cols[0].metric(
        "Argmax agreement",
        score_text(d["argmax_agreement"]),
        help="Share of noisy outputs whose largest coordinate is the clean one's",
    )
    silhouette, ch = d["silhouette_noisy"], d["calinski_harabasz_noisy"]
    cols[1].metric(
        "Silhouette, noisy",
        score_text(silhouette),
        score_change(silhouette, d["silhouette_clean"], "vs clean"),
    )
    cols[2].metric(
        "Calinski-Harabasz",
        f"{ch:.1f}",
        f"{ch - d['calinski_harabasz_clean']:+.1f} vs clean",
        help="on the noisy outputs",
    )
    cols[3].metric("ε spent", f"{current.epsilon_spent:g}", help="per output vector (local DP)")
    replay_caption(st, current)
    diagnostics_caption(st, [current])


def _headline(
    headline: DeltaGenerator, found: list[RunResult], absent: list[RunConfig], epsilon: float
) -> None:
    """Draw cluster quality vs ε into ``headline``, what it shows, and the sweep's button."""
    chart(headline, plots.cluster_metrics_vs_epsilon, found, epsilon, key="metrics")
    headline.caption(
        "k-means with K clusters on the clean and on the noisy test outputs; silhouette (on a "
        "sample of up to 2,000 points) and Calinski-Harabasz say how compact and separated the "
        "clusters are, agreement is the share of noisy outputs whose largest coordinate is still "
        "the clean one. Below ε ≈ 1 the noise (scale 2/ε) dwarfs probabilities that live in "
        "[0, 1]. " + status_sentence(absent)
    )
    with reported_errors(), headline:
        compute_button(absent, "Run the sweep", "run_outputs")


def _projection(controls: Controls, current: RunResult, epsilon: float) -> None:
    """Draw a sample of clean and noisy test outputs on the clean outputs' two principal axes."""
    chart(
        st,
        plots.output_projection,
        current.details["projection"],
        load_dataset(controls.dataset).class_names,
        epsilon,
        key="projection",
    )
    st.caption(
        "A sample of test outputs on the two principal axes of the clean outputs, coloured by "
        "true class; mind the axes, each panel has its own scale. Clean outputs sit near the "
        f"corners of the probability simplex; noise of scale {2 / epsilon:.3g} blurs them into "
        "one cloud as ε falls."
    )


def _wrong_sensitivity(epsilon: float) -> None:
    """Say what calibrating to a sensitivity of 1 instead of 2 really spends at ``epsilon``."""
    st.subheader("Why the sensitivity must be 2, not 1")
    wrong = actual_epsilon(epsilon, 1.0)
    st.markdown(
        f"A probability vector can move from one corner of the simplex to another, e.g. from "
        f"(1, 0, …) to (0, 1, …): an L1 change of {PROBABILITY_SENSITIVITY:g}. Calibrating to an "
        f"assumed sensitivity of 1 uses scale 1/ε = {1 / epsilon:.3g} instead of 2/ε = "
        f"{2 / epsilon:.3g}. The privacy loss of that noise on those two vectors is 2/(1/ε) = "
        f"**{wrong:g}, not {epsilon:g}**: the likelihood ratio an observer can see is bounded by "
        f"e^{wrong:g} = {math.exp(wrong):.3g} rather than the promised e^{epsilon:g} = "
        f"{math.exp(epsilon):.3g}, {math.exp(wrong - epsilon):.3g} times weaker."
    )


def _epsilon_for_noise() -> None:
    """Draw the calculator: the ε that keeps each output coordinate within ±t with probability p."""
    st.subheader("Which ε for a target noise level?")
    left, right = st.columns(2)
    magnitude = left.number_input(
        "Noise magnitude t per coordinate",
        min_value=0.001,
        max_value=100.0,
        value=0.1,
        step=0.05,
        key="output_t",
        bind="query-params",
    )
    probability = right.number_input(
        "Probability p that |noise| ≤ t",
        min_value=0.01,
        max_value=0.999,
        value=0.5,
        step=0.05,
        format="%.3f",
        key="output_p",
        bind="query-params",
    )
    with reported_errors():
        needed = epsilon_for_output_noise(magnitude, probability)
    st.markdown(
        f"ε = 2 ln(1/(1 − p)) / t = 2 × {-math.log1p(-probability):.4g} / {magnitude:g} = "
        f"**{needed:.4g}** keeps each coordinate's noise within ±{magnitude:g} with probability "
        f"{probability:g}. Noise small next to probabilities in [0, 1] needs a large ε."
    )


render()
