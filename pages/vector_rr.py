"""Vector randomized response: per-bit flips, the closed form, accuracy vs ε beside RR."""

import streamlit as st

from labeldp_core import plots
from labeldp_core.base.numbers import in_words, score_change, score_text
from labeldp_core.data import dataset_info
from labeldp_core.experiments import RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.vector_rr.release import (
    bit_flip_probability,
    crossover_classes,
    estimate_variances,
)
from labeldp_core.mechanisms import expected_flip_rate
from ui.clean import page_clean_line
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
SWEEP_EPSILONS = list(demo_epsilons("vector-rr"))
#: RR's demo grid, for the curve beside it.
RR_EPSILONS = list(demo_epsilons("rr"))


def render() -> None:
    """Draw the page: ε and the per-bit flip curve, the closed form, then accuracy vs ε."""
    controls = current_controls()
    st.title("Vector randomized response")
    settings = controls.settings | {"noise": noise_control()}  # in the sidebar
    num_classes = dataset_info(controls.dataset).num_classes
    epsilon = epsilon_control(
        grid=computed_stops("vector-rr", controls, settings), risk=RiskOf(num_classes)
    )
    result = _headline(controls, settings, num_classes, epsilon)
    _closed_form(epsilon, num_classes, result)
    st.markdown(
        "Each training label becomes its one-hot vector of K bits, and every bit is flipped on "
        "its own with probability f = 1/(1+e^(ε/2)). Replacing one label by another changes two "
        "bits of the vector (the old label's and the new one's); each bit's probability moves by "
        "at most e^(ε/2), so the vector's by at most e^ε: the release is ε-label-DP (replace-one "
        "neighbours), and so is any model trained on it. The model has one sigmoid output per "
        "class, learns each bit's mean q + (p − q)·P(y = k | x), and predicts the largest "
        "(Zhao et al., ICLR 2025)."
    )
    _where_it_wins(epsilon, num_classes)
    _accuracy_curves(controls, settings, epsilon, num_classes)


def _where_it_wins(epsilon: float, num_classes: int) -> None:
    """The variance crossover: which of the two learns a class's share better at (ε, K)."""
    st.subheader("Where it wins")
    vector, rr = estimate_variances(epsilon, num_classes)
    border = crossover_classes(epsilon)
    winner = "vector RR" if vector < rr else "RR"
    left, right = st.columns(2)
    chart(left, plots.crossover_figure, num_classes, epsilon, key="crossover")
    right.caption(
        f"From one released vector, (b_k − q)/(p − q) estimates whether the label is k with "
        f"variance e^(ε/2)/(e^(ε/2) − 1)² = {vector:.3g}, whatever K; from one RR label the same "
        f"estimate has variance (e^ε + K − 2)/(e^ε − 1)² = {rr:.3g} at K = {num_classes}. A model "
        f"learning P(y = k | x) averages such estimates, so the smaller variance learns more "
        f"from the same data: here {winner}. Vector RR has the smaller one when K > "
        f"e^(3ε/2) + e^ε + e^(ε/2) + 2 = {border:.3g} at ε = {epsilon:g}: with many classes or "
        "at small ε (Wang et al. 2017 compare the two encodings the same way)."
    )


def _headline(
    controls: Controls, settings: dict, num_classes: int, epsilon: float
) -> RunResult | None:
    """Draw the per-bit flip curve at once, then the run at ``epsilon`` if stored; return it."""

    def headline(result: RunResult | None) -> None:  # a run adds its measured bit flip rate
        if result is None:
            chart(st, plots.bit_flip_curve, num_classes, epsilon, key="bit_flip_closed_form")
        else:
            measured = result.details["bit_flip_rate"]
            chart(st, plots.bit_flip_curve, num_classes, epsilon, measured, key="bit_flip")

    return point_under_headline(
        headline,
        lambda: make_config(
            "vector-rr", controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        ),
        f"Compute ε = {epsilon:g} on {controls.dataset_name}",
        "Training on released bit vectors",
    )


def _closed_form(epsilon: float, num_classes: int, result: RunResult | None) -> None:
    """The closed form at ``epsilon`` in words, the learned signal, and the run's metrics."""
    flip = bit_flip_probability(epsilon)
    st.caption(
        f"At ε = {epsilon:g} each bit flips with probability f = {flip:.3f} whatever K: the true "
        f"bit stays 1 with p = {1 - flip:.3f}, each other bit turns 1 with q = {flip:.3f}, so a "
        f"released vector holds {1 + (num_classes - 2) * flip:.2f} ones on average. Randomized "
        f"response with K = {num_classes} flips the whole label with probability "
        f"{expected_flip_rate(epsilon, num_classes):.3f}."
        + (" The cross is the bit flip rate this run measured." if result is not None else "")
    )
    left, right = st.columns(2)
    chart(left, plots.bit_signal_lines, num_classes, epsilon, key="bit_signal")
    right.caption(
        "What survives the noise is the slope: a model's target for class k rises with the true "
        "probability of k by p − q = tanh(ε/4) for vector RR, whatever K, and by "
        "(e^ε − 1)/(e^ε + K − 1) for RR, which falls as K grows. Both are increasing, so both "
        "argmaxes are right with enough data; the steeper one needs less."
    )
    if result is None:
        right.info(
            f"Not computed yet at ε = {epsilon:g}: the button under the ε control trains it."
        )
        return
    _metrics(result, flip)


def _metrics(result: RunResult, flip: float) -> None:
    """The run's four metrics: measured bit flips, test accuracy, ε spent, training labels."""
    cols = st.columns(4)
    measured = result.details["bit_flip_rate"]
    cols[0].metric(
        "Measured bit flip rate",
        score_text(measured),
        score_change(measured, flip, "vs 1/(1+e^(ε/2))"),
        delta_color="off",
    )
    cols[1].metric(
        "Test accuracy",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, result.baseline_test_accuracy, "vs clean"),
    )
    cols[2].metric(
        "ε spent",
        f"{result.epsilon_spent:g}",
        help="label-DP, replace-one: 2 ln(D/m) of the exact bit coins",
    )
    cols[3].metric("Training labels", f"{result.n_train:,}")
    diagnostics_caption(st, [result])


def _accuracy_curves(
    controls: Controls,
    settings: dict,
    epsilon: float,
    num_classes: int,
) -> None:
    """Test accuracy vs ε of vector RR and of RR on the same data and model, over the seeds."""
    st.subheader(f"Test accuracy vs ε, beside randomized response (K = {num_classes})")
    with reported_errors():
        configs = sweep_configs(
            "vector-rr",
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            settings,
        )
        configs += sweep_configs(
            "rr", controls.dataset, RR_EPSILONS, DEMO_SEEDS, controls.epochs_asked, settings
        )
        found, absent = stored_many(configs)
        compute_button(absent, "Run sweeps", key="run_sweep")
    clean = page_clean_line(controls, found)
    series = {
        "vector randomized response": [r for r in found if r.mechanism == "vector-rr"],
        "randomized response": [r for r in found if r.mechanism == "rr"],
    }
    chart(
        st,
        plots.score_vs_epsilon,
        series,
        clean.score,
        chance=1 / num_classes,
        marked_epsilon=epsilon,
        mechanisms={"vector randomized response": "vector-rr", "randomized response": "rr"},
        key="accuracy_curve",
    )
    st.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)} of a model trained on what was "
        "released at that ε and scored on clean test labels, the band the lowest to the highest "
        "seed; the dashed line is the same model trained on the true "
        f"labels ({clean.words}). " + status_sentence(absent)
    )


render()
