"""Choose ε: from a target score to the smallest ε per mechanism, and from an ε to each score."""

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core.choosing import make_target
from labeldp_core.choosing.choice import DEFAULT_TRAININGS, Choice, choose_epsilon
from labeldp_core.choosing.summary import clean_baseline, summary_at
from labeldp_core.data import dataset_info
from labeldp_core.data.tables import is_table
from labeldp_core.demo import DEMO_SEEDS, demo_configs
from labeldp_core.engine.spec import RunResult
from labeldp_core.engine.timing import spoken_duration
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import MECHANISMS
from labeldp_core.risk import FORMULAS, Prior, risk_of
from ui.controls import Controls, current_controls
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


def render() -> None:
    """Draw the page: the target, the smallest ε per mechanism, its risk, then 'I can afford x'."""
    controls = current_controls()
    st.title("Choose ε")
    kind, value, unit, confident = _target_controls()
    choice = _answers(controls, kind, value, unit, confident)
    _narrow(controls, choice)
    classes = dataset_info(controls.dataset).num_classes
    found = _stored_runs(controls, choice)
    prior = _image_prior(found, controls.dataset_name)
    if choice.reached and choice.target.metric == "test accuracy":
        best = choice.reached[0]
        st.subheader(
            f"What ε = {best.epsilon_spent:.3g} ({_title(best.mechanism)}) adds to an "
            "attacker's guess"
        )
        _risk(st, best.epsilon_spent, best.privacy_unit, best.delta, classes, prior)
    _afford(found, unit, classes, prior)
    st.caption(" ".join(choice.notes))
    if is_table(controls.dataset):
        st.caption(
            f"These answers read {controls.dataset_name}'s own curves, so its private labels "
            "chose them: for a release, pick a bundled dataset of the same kind in the sidebar (a "
            "public proxy), choose ε there, and say which proxy you used."
        )


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
    """The answers for one target, read from the cache (remembered a minute per target)."""
    target = make_target(kind, value, unit, confident)
    return choose_epsilon(dataset, target, epochs=epochs, model=model, cache=result_cache())


def _title(mechanism: str) -> str:
    """How the tables name a mechanism: its title, or its id if it has none."""
    return MECHANISMS[mechanism].title if mechanism in MECHANISMS else mechanism


def _target_controls() -> tuple[str, float, str, bool]:
    """Draw the target's controls in one row, bound to the link.

    Returns:
        The target's kind, its value, the privacy unit needed and whether every seed must reach it.
    """
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
        help="label: one training label changed (replace-one). example: one whole example added "
        "or removed; label-DP mechanisms do not give it.",
    )
    confident = sure_box.checkbox(
        "Every seed",
        key="confident",
        bind="query-params",
        help="The lower band (the worst of the seeds), not the mean, must reach the target.",
    )
    return kind, value, unit, confident


def _answers(controls: Controls, kind: str, value: float, unit: str, confident: bool) -> Choice:
    """Draw the table of the smallest ε per mechanism and how it was read; return the choice."""
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
    return choice


def _narrow(controls: Controls, choice: Choice) -> None:
    """Offer to narrow the interpolated answers by bisection (not on a read-only server)."""
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
        spoken = spoken_duration(
            None if seconds is None else seconds / len(choice.next_runs) * budget
        )
        count = len(choice.coarse)
        label = f"Narrow {count} answers by bisection on ε ({budget} runs at most, {spoken})"
        if st.button(label, key="narrow"):
            _bisect(controls, choice, budget)


def _bisect(controls: Controls, choice: Choice, budget: int) -> None:
    """Train at most ``budget`` runs to narrow the answers, with a progress bar; then redraw."""
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


def _stored_runs(controls: Controls, choice: Choice) -> list[RunResult]:
    """The stored demo runs of the mechanisms that answered (none computed here)."""
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
    return found


def _image_prior(found: list[RunResult], dataset_name: str) -> Prior | None:
    """What a model of the public image tells an attacker, read from the stored runs.

    The runs keep their clean model's test accuracy (the same model trained on the true
    labels), not its confidence per image: that accuracy is how often a model of the image
    alone names the true label, the stand-in for π that the page says it is.
    """
    accuracy = clean_baseline(found, "test accuracy")
    if accuracy is None:
        return None
    source = (
        f"the clean model's test accuracy on {dataset_name}: how often a model of the image "
        "alone names the true label, standing in for a public model's confidence"
    )
    return Prior(accuracy, source)


def _afford(found: list[RunResult], unit: str, classes: int, prior: Prior | None) -> None:
    """Draw 'I can afford ε = x': each mechanism's score at the grid ε nearest x, and x's risk."""
    st.subheader("I can afford ε = x")
    afford = st.number_input("x", 0.01, 100.0, 1.0, key="afford", bind="query-params")
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
        _risk(st, afford, unit, 0.0, classes, prior)
    except LabelDPError as exc:
        st.error(str(exc))


def _risk(
    container: DeltaGenerator,
    epsilon: float,
    unit: str,
    delta: float,
    classes: int,
    prior: Prior | None,
) -> None:
    """The risk numbers of an ε for one label, each with its formula as help.

    The guess first from the image's prior (the attacker label DP assumes sees the public
    image), then from the uniform prior, each labelled with the prior it starts from.
    """
    risk = risk_of(epsilon, classes, unit, delta, prior)
    columns = container.columns(4 if risk.informed is not None else 3)
    columns[0].metric("Odds moved by at most", risk.odds_text, help=FORMULAS["odds"])
    if prior is not None and risk.informed is not None:
        columns[1].metric(
            f"Guess of one label, from the image (π = {prior.probability:.1%})",
            f"≤ {risk.informed:.1%}",
            f"before: {prior.probability:.1%}",
            delta_color="off",
            help=f"{FORMULAS['guess']}. Here π is {prior.source}.",
        )
    columns[-2].metric(
        f"Guess of one label, uniform prior (π = 1/{classes}, image unseen)",
        f"≤ {risk.guess:.1%}",
        f"before: {risk.blind:.1%}",
        delta_color="off",
        help=FORMULAS["guess"],
    )
    columns[-1].metric("Attack gain over features", f"≤ {risk.gain:.1%}", help=FORMULAS["gain"])
    container.caption(risk.line() + " " + risk.strength())
    if unit == "example":
        container.caption(FORMULAS["example"])


render()
