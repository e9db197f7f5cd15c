"""DP prototypes: DPPL-Mean, DPPL-Public and Top-K on imbalanced private data."""

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text, in_words, score_change, score_text
from labeldp_core.data import Dataset, dataset_info, load_dataset
from labeldp_core.experiments import RunConfig, RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.prototypes.plots import MECHANISM_NAMES
from labeldp_core.plots_base.common import UNIT_SCALE_NOTE
from ui.controls import Controls, current_controls
from ui.dppl import (
    DPPL_MECHANISMS,
    DpsgdComparison,
    dpsgd_comparison,
    encoder_model,
    unique,
)
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import (
    diagnostics_caption,
    replay_caption,
    reported_errors,
    result_for,
    stored_many,
)
from ui.risk import RiskOf
from ui.sweeps import compute_button

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("dppl-public"))
IMBALANCES = ["1", "10", "100"]


def render() -> None:
    """Draw the page: ε, per-class accuracy under it, the run, then accuracy vs ε and per class."""
    controls = current_controls()
    st.title("DP prototypes")
    epsilon = epsilon_control(
        grid=SWEEP_EPSILONS, risk=RiskOf(dataset_info(controls.dataset).num_classes, "example")
    )
    headline = st.container()  # accuracy per class, right under the ε control
    st.markdown(
        "A public encoder maps images to embeddings; each class of the **private** data is then "
        "represented by one *prototype* in that space, released with differential privacy, and "
        "an image is classified by the prototype it is most similar to (cosine similarity). No "
        "model is trained on private data, so very small ε and imbalanced classes hurt far less "
        "than with DP-SGD (Wahdany et al. 2024). **Privacy unit: the whole private example**, "
        "image and label together, add/remove neighbours. " + UNIT_SCALE_NOTE
    )
    mechanism, imbalance = _choices()
    model = encoder_model(controls)
    settings = {"model": model, "imbalance": float(imbalance)}
    data = load_dataset(controls.dataset)
    with reported_errors():
        config = make_config(
            mechanism, controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        )
        result = result_for(
            config,
            f"Compute {MECHANISM_NAMES[mechanism]} at ε = {epsilon:g}",
            "Public encoder and DP prototypes",
        )
    dpsgd = dpsgd_comparison(
        controls.dataset,
        [*SWEEP_EPSILONS, epsilon],
        controls.seed,
        controls.epochs_asked,
        model,
        float(imbalance),
    )
    if result is None:
        headline.info(
            "The button under the ε control trains the public encoder and releases the "
            "prototypes; the embeddings and every result are then cached."
        )
    else:
        _run(result)
        _per_class_bars(headline, result, data, dpsgd, epsilon)
        _prototypes(result, data, mechanism, epsilon)
    detail_configs = _accuracy_curves(controls, mechanism, settings, epsilon, result, dpsgd)
    _per_class_curves(mechanism, imbalance, detail_configs, result, data, dpsgd)


def _choices() -> tuple[str, str]:
    """Draw the mechanism and the private classes' imbalance; return both."""
    mechanism = linked(
        st.selectbox,
        "Mechanism",
        "dppl_mechanism",
        DPPL_MECHANISMS,
        help="dppl-mean: private class means (CoinPress). dppl-public: one public image per class "
        "picked by the exponential mechanism. dppl-topk: K public images per class in one draw.",
    )
    imbalance = linked(
        st.selectbox,
        "Imbalance of the private classes (largest / smallest)",
        "dppl_imbalance",
        IMBALANCES,
        index=1,
    )
    return mechanism, imbalance


def _run(result: RunResult) -> None:
    """Draw the run's data, its four metrics and how its budget is spent."""
    details = result.details
    st.markdown(
        f"**Public:** {details['public_part']}. **Private:** {details['private_part']}. "
        f"**Encoder:** {details['encoder']}."
    )
    cols = st.columns(4)
    cols[0].metric(
        "Test accuracy",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, result.baseline_test_accuracy, "vs non-DP"),
    )
    cols[1].metric(
        "Minority accuracy",
        score_text(details["minority_accuracy"]),
        score_change(
            details["minority_accuracy"], details["baseline_minority_accuracy"], "vs non-DP"
        ),
    )
    spent = epsilon_text(result.epsilon_spent, result.epsilon) + (
        f", δ={result.delta:g}" if result.delta else ""
    )
    cols[2].metric("ε spent", spent, help="example-level, add/remove")
    cols[3].metric("Private examples", f"{result.n_train:,}", help="training examples")
    st.caption(f"**What ε covers:** {details['guarantee_scope']}.")
    replay_caption(st, result)
    with st.expander("How the budget is spent"):
        st.write(details["composition"])
        if "epsilon_meaning" in details:
            st.write(details["epsilon_meaning"])
    diagnostics_caption(st, [result])


def _per_class_bars(
    headline: DeltaGenerator,
    result: RunResult,
    data: Dataset,
    dpsgd: DpsgdComparison,
    epsilon: float,
) -> None:
    """Draw each class's accuracy, with and without privacy, into ``headline``."""
    details = result.details
    chart(
        headline,
        plots.per_class_accuracy_bars,
        details["per_class_accuracy"],
        details["baseline_per_class_accuracy"],
        details["class_counts"],
        data.class_names,
        details["minority_classes"],
        dpsgd.per_class_at(epsilon),
        key="per_class_bars",
    )
    headline.caption(
        "Each class's test accuracy with the DP prototypes (blue) and with the same prototypes "
        "computed without privacy (grey); the classes run from the largest private class to the "
        "smallest. Watch the minority classes (★) as ε falls: their prototypes rest on the "
        "fewest private examples, so the same noise (or a poor pick) weighs more on them; "
        "classes whose images are easy to tell apart hold out longest."
    )


def _prototypes(result: RunResult, data: Dataset, mechanism: str, epsilon: float) -> None:
    """Draw the public images picked as prototypes beside the best ones (or why there are none)."""
    details = result.details
    if mechanism == "dppl-mean":
        st.info(
            "DPPL-Mean's prototypes are points in embedding space, not images. Choose dppl-public "
            "or dppl-topk above to see the public images picked as prototypes."
        )
        return
    chosen = np.asarray(details["prototype_train_indices"])
    best = np.asarray(details["baseline_prototype_train_indices"])
    k = chosen.shape[1]
    images = data.x_train[np.concatenate([chosen, best], axis=1)][:, :, 0]
    # The DP set is unordered (listed by candidate index); the best are ranked by utility.
    titles = ["DP set"] * k + [f"best {i + 1}" for i in range(k)]
    chart(st, plots.prototype_mosaic, images, data.class_names, titles, key="mosaic")
    st.caption(
        f"Left: the public image{'s' if k > 1 else ''} the exponential mechanism picked for "
        f"each class at ε = {epsilon:g}; right: the highest-utility candidate"
        f"{'s' if k > 1 else ''}, what it would pick without privacy (a diagnostic, not "
        "private). Releasing a public image reveals nothing beyond which one was picked, and "
        "a set of picks is shown in candidate order, which says nothing about which pick "
        "scored best; at small ε the picks drift to images that merely resemble the class."
    )


def _curve_choices() -> tuple[list[str], bool, bool]:
    """Draw the curves' imbalance ratios, their accuracy and their x axis.

    Returns:
        The ratios, whether the minority classes' accuracy is drawn, whether against ε spent.
    """
    left, right = st.columns(2)
    ratios = linked(
        left.multiselect,
        "Imbalance ratios in the curves",
        "dppl_ratios",
        IMBALANCES,
        default=["1", "10"],
    )
    view = linked(
        right.radio,
        "Accuracy of",
        "dppl_view",
        ["all test images", "minority classes"],
        horizontal=True,
    )
    x_axis = linked(right.radio, "x axis", "dppl_x", ["ε spent", "ε asked for"], horizontal=True)
    return ratios, view == "minority classes", x_axis == "ε spent"


def _curve_points(
    controls: Controls, mechanism: str, settings: dict, ratios: list[str]
) -> tuple[list[RunResult], list[RunConfig], list[RunConfig]]:
    """The curves' stored points, those not yet (with their button), and the chosen curve's grid.

    Returns:
        The stored points, the points not computed yet, and the configs of the mechanism and
        imbalance chosen above (the per-class curves).
    """
    with reported_errors():
        configs = [
            c
            for m in DPPL_MECHANISMS
            for ratio in ratios
            for c in sweep_configs(
                m,
                controls.dataset,
                SWEEP_EPSILONS,
                DEMO_SEEDS,
                controls.epochs_asked,
                {"model": settings["model"], "imbalance": float(ratio)},
            )
        ]
        detail_configs = sweep_configs(
            mechanism,
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            settings,
        )
        found, absent = stored_many(unique(configs + detail_configs))
        compute_button(absent, "Compute the curves", key="dppl_sweep")
    return found, absent, detail_configs


def _accuracy_curves(
    controls: Controls,
    mechanism: str,
    settings: dict,
    epsilon: float,
    result: RunResult | None,
    dpsgd: DpsgdComparison,
) -> list[RunConfig]:
    """Draw accuracy vs ε per mechanism and imbalance, DP-SGD beside; return the chosen grid."""
    st.subheader("Accuracy vs ε")
    ratios, minority, at_spent = _curve_choices()
    found, absent, detail_configs = _curve_points(controls, mechanism, settings, ratios)
    curves = [r for r in found if str(int(r.settings["imbalance"])) in ratios]
    reference = next((r.details["public_encoder_test_accuracy"] for r in found), None)
    dpsgd_series = {}
    if dpsgd.results:
        classes = result.details["minority_classes"] if result else []
        points = dpsgd.minority(classes, at_spent) if minority else dpsgd.overall(at_spent)
        if points:
            dpsgd_series["DP-SGD"] = points
    chart(
        st,
        plots.dppl_accuracy_curves,
        curves,
        minority=minority,
        spent=at_spent,
        dpsgd=dpsgd_series,
        reference=None if minority else reference,
        marked_epsilon=epsilon,
        key="dppl_curves",
    )
    st.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)}: a line per mechanism "
        "(colour) and imbalance ratio (dash); the dotted line is the "
        "encoder's own classifier, trained on the public part alone, which spends no privacy at "
        "all. DPPL-Public and Top-K are pure ε-DP; DPPL-Mean's zCDP ρ is calibrated so that its "
        "(ε, δ)-DP guarantee at δ = 1e-5 is at most the ε asked for. "
        + (
            f"{len(absent)} points are not computed yet; the button computes and caches each one."
            if absent
            else "Every point of these curves is cached."
        )
    )
    st.caption(dpsgd.note + f" DP-SGD's ε is (ε, δ)-DP; its line is seed {controls.seed} alone.")
    return detail_configs


def _per_class_curves(
    mechanism: str,
    imbalance: str,
    detail_configs: list[RunConfig],
    result: RunResult | None,
    data: Dataset,
    dpsgd: DpsgdComparison,
) -> None:
    """Draw each class's accuracy vs ε for the mechanism and imbalance chosen above."""
    st.subheader(f"Per-class accuracy vs ε: {MECHANISM_NAMES[mechanism]}, imbalance {imbalance}")
    detail_found, _ = stored_many(detail_configs)
    minority_points = dpsgd.minority(result.details["minority_classes"]) if result else []
    chart(
        st,
        plots.per_class_accuracy_curves,
        detail_found,
        data.class_names,
        dpsgd_minority=minority_points,
        key="per_class_curves",
    )
    st.caption(
        f"A line per class, each point the mean over seeds {in_words(DEMO_SEEDS)}; the bold ones "
        "are the smallest private classes. Majority classes tend "
        "to reach their clean accuracy at a smaller ε than minority classes, because a "
        "prototype's noise (or a poor pick) matters less when many examples back it."
    )


render()
