"""Choose ε: from a target score to the smallest ε per mechanism, and from an ε to each score."""

import streamlit as st

from labeldp_core.choosing import make_target
from labeldp_core.choosing.choice import DEFAULT_TRAININGS, Choice, choose_epsilon
from labeldp_core.choosing.summary import summary_at
from labeldp_core.data import dataset_info
from labeldp_core.data.tables import is_table
from labeldp_core.demo import DEMO_SEEDS, demo_configs
from labeldp_core.engine.timing import spoken_duration
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import MECHANISMS
from labeldp_core.risk import FORMULAS, risk_of
from ui.controls import current_controls
from ui.links import linked
from ui.results import (
    estimate,
    read_only,
    reported_errors,
    result_cache,
    stored_many,
)

TARGETS = {
    "accuracy": "Test accuracy at least",
    "within": "Within P points of the clean model",
    "mse": "Test MSE at most",
}
DEFAULTS = {"accuracy": 0.9, "within": 5.0, "mse": 2.0}


@st.cache_data(show_spinner=False, ttl=60)
def _choice(
    dataset: str,
    kind: str,
    value: float,
    unit: str,
    confident: bool,
    epochs: int | None,
    model: str,
) -> Choice:
    target = make_target(kind, value, unit, confident)
    return choose_epsilon(dataset, target, epochs=epochs, model=model, cache=result_cache())


def _title(mechanism: str) -> str:
    return MECHANISMS[mechanism].title if mechanism in MECHANISMS else mechanism


def _risk(container, epsilon: float, unit: str, delta: float, classes: int) -> None:
    """The risk numbers of an ε for one label, each with its formula as help."""
    risk = risk_of(epsilon, classes, unit, delta)
    odds, guess, gain = container.columns(3)
    odds.metric("Odds moved by at most", risk.odds_text, help=FORMULAS["odds"])
    guess.metric(
        "Best guess of one label",
        f"{risk.guess:.1%}",
        f"blind: {risk.blind:.1%}",
        delta_color="off",
        help=FORMULAS["guess"],
    )
    gain.metric("Attack gain over features", f"≤ {risk.gain:.1%}", help=FORMULAS["gain"])
    container.caption(risk.line() + " " + risk.strength())
    if unit == "example":
        container.caption(FORMULAS["example"])


controls = current_controls()
st.title("Choose ε")
kind_box, value_box, unit_box, sure_box = st.columns([3, 2, 2, 2])
kind = linked(kind_box.selectbox, "Target", "target", list(TARGETS), labels=TARGETS.get)
value = value_box.number_input(
    "A, P or M",
    value=DEFAULTS[kind],
    step=0.01 if kind == "accuracy" else 0.5,
    key="value",
    bind="query-params",
    help="Accuracy as a share (0.9); P in percentage points (5); an MSE (2.0).",
)
unit = linked(
    unit_box.selectbox,
    "Privacy unit you need",
    "unit",
    ["label", "example"],
    help="label: one training label changed (replace-one). example: one whole example added or "
    "removed; label-DP mechanisms do not give it.",
)
confident = sure_box.checkbox(
    "Every seed",
    key="confident",
    bind="query-params",
    help="The lower band (the worst of the seeds), not the mean, must reach the target.",
)

with reported_errors():
    choice = _choice(
        controls.dataset, kind, value, unit, confident, controls.epochs_asked, controls.model
    )
    rows = [a.row() | {"mechanism": _title(a.mechanism)} for a in choice.answers]
if rows:
    st.dataframe(rows, hide_index=True, key="answers")
else:
    st.info(
        f"No curve of {controls.dataset_name} is computed yet: warm the cache (sidebar, or "
        f"`python -m labeldp_core warm --dataset {controls.dataset}`)."
    )
st.caption(
    f"On {controls.dataset_name}: {choice.target.describe()}. The smallest ε whose curve "
    "reaches the target, read on the straight line (log ε) between the computed ε around it: "
    "an ε marked ≈ and its score are interpolated, not computed; nothing is read beyond the "
    "largest computed ε. The seeds' spread is where the best and the worst seed reach it; ε "
    "spent is what the accounting computed, under the mechanism's own neighbouring relation; "
    "'ε for your unit' reads an example-level guarantee for one changed label (2ε)."
    + (
        f" {choice.missing} runs of the grid are not cached: an ε missing a seed is left out."
        if choice.missing
        else ""
    )
)

if choice.coarse and read_only():
    st.caption(
        "This server is read-only (classroom mode): it computes nothing here, so the answers "
        "rest on the points computed before class."
    )
elif choice.coarse:
    budget = st.number_input(
        "At most N trainings", 1, 200, DEFAULT_TRAININGS, key="budget", bind="query-params"
    )
    seconds = estimate(list(choice.next_runs))
    spoken = spoken_duration(None if seconds is None else seconds / len(choice.next_runs) * budget)
    count = len(choice.coarse)
    label = f"Narrow {count} answers by bisection on ε ({budget} runs at most, {spoken})"
    if st.button(label, key="narrow"):
        bar = st.progress(0.0, text="Bisection")
        with reported_errors():
            choose_epsilon(
                controls.dataset,
                choice.target,
                epochs=controls.epochs_asked,
                model=controls.model,
                cache=result_cache(),
                compute=True,
                max_trainings=budget,
                progress=lambda f, m: bar.progress(min(f, 1.0), text=m),
            )
        _choice.clear()
        st.rerun()

classes = dataset_info(controls.dataset).num_classes
if choice.reached and choice.target.metric == "test accuracy":
    best = choice.reached[0]
    st.subheader(f"What ε = {best.epsilon_spent:.3g} ({_title(best.mechanism)}) risks")
    _risk(st, best.epsilon_spent, best.privacy_unit, best.delta, classes)

st.subheader("I can afford ε = x")
afford = st.number_input("x", 0.01, 100.0, 1.0, key="afford", bind="query-params")
with reported_errors():
    found, _ = stored_many(
        demo_configs(
            controls.dataset,
            [a.mechanism for a in choice.answers],
            DEMO_SEEDS,
            controls.epochs_asked,
            controls.model,
            variants=False,
        )
    )
at_x = summary_at(found, afford)
if at_x:
    st.dataframe(
        [r | {"mechanism": _title(r["mechanism"])} for r in at_x],
        hide_index=True,
        key="afford_table",
    )
    st.caption(
        "Each mechanism at the computed grid ε nearest x (as Compare's summary), best "
        "first within each privacy unit."
    )
try:
    _risk(st, afford, unit, 0.0, classes)
except LabelDPError as exc:
    st.error(str(exc))
st.caption(" ".join(choice.notes))
if is_table(controls.dataset):
    st.caption(
        f"These answers read {controls.dataset_name}'s own curves, so its private labels chose "
        "them: for a release, pick a bundled dataset of the same kind in the sidebar (a public "
        "proxy), choose ε there, and say which proxy you used."
    )
