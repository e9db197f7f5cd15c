"""Choose ε: from a target score to the smallest ε per mechanism, and from an ε to each score."""

import streamlit as st

from labeldp_core.accounting.risk import FORMULAS, Prior, risk_of, scale_sentence
from labeldp_core.base.numbers import epsilon_text
from labeldp_core.choosing import Answer, make_target
from labeldp_core.choosing.choice import DEFAULT_TRAININGS, Choice, choose_epsilon
from labeldp_core.choosing.clean_reference import clean_line, image_prior
from labeldp_core.choosing.headline import headlines, nearest
from labeldp_core.choosing.summary import summary_at
from labeldp_core.data import dataset_info
from labeldp_core.data.tables import is_table
from labeldp_core.engine.spec import RunResult
from labeldp_core.engine.timing import spoken_duration
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import MECHANISMS
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs
from labeldp_core.registry import mechanism_title
from ui.controls import Controls, current_controls
from ui.links import linked
from ui.results import (
    estimate,
    read_only,
    reported_errors,
    result_cache,
    stored_many,
)
from ui.widget_state import without_default

TARGETS = {
    "accuracy": "Test accuracy at least",
    "within": "Within P points of the clean model",
    "mse": "Test MSE at most",
}
DEFAULTS = {"accuracy": 0.9, "within": 5.0, "mse": 2.0}
#: What the value box takes, per kind of target.
VALUE_LABELS = {
    "accuracy": "Accuracy to reach",
    "within": "Points below clean",
    "mse": "MSE at most",
}
#: A row of the table of answers, in px: short enough for every row of a 12-mechanism table
#: under the headlines on a 1280x800 screen (Streamlit's default, 35, leaves 10 rows visible).
ROW_PX = 26


def render() -> None:
    """Draw the page: the target, the answer per unit, the table, its risk, 'I can afford x'."""
    controls = current_controls()
    st.title("Choose ε")
    kind, value, unit, confident = _target_controls()
    choice, risked = _answers(controls, kind, value, unit, confident)
    if choice is not None:
        _narrow(controls, choice)
    classes = dataset_info(controls.dataset).num_classes
    found = [] if choice is None else _stored_runs(controls, choice)
    prior = _image_prior(controls, found)
    _risk_of_answer(risked, classes, prior)
    _afford(found, unit, classes, prior)
    if choice is not None:
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
    return choose_epsilon(
        dataset,
        target,
        epochs=epochs,
        model=model,
        cache=result_cache(),
        refuse_beyond_clean=False,
    )


def _value_to_default() -> None:
    """A new kind of target starts from its own default: 0.9 means nothing as points or MSE."""
    st.session_state["value"] = DEFAULTS[st.session_state["target"]]


def _target_controls() -> tuple[str, float, str, bool]:
    """Draw the target's controls in one row, bound to the link.

    Returns:
        The target's kind, its value, the privacy unit needed and whether every seed must reach it.
    """
    kind_box, value_box, unit_box, sure_box = st.columns([3, 2, 2, 2])
    kind = linked(
        kind_box.selectbox,
        "Target",
        "target",
        list(TARGETS),
        labels=TARGETS.get,
        on_change=_value_to_default,
    )
    value = value_box.number_input(
        VALUE_LABELS[kind],
        step=0.01 if kind == "accuracy" else 0.5,
        key="value",
        bind="query-params",
        help="A test accuracy as a share, 0 to 1 (0.9); or how many percentage points below "
        "the model trained on the true labels (5); or a test MSE (2.0).",
        **without_default("value", {"value": DEFAULTS[kind]}),  # after a reset, the session's
    )
    unit = linked(
        unit_box.selectbox,
        "Privacy unit",
        "unit",
        ["label", "example"],
        help="The privacy unit you need. label: one training label changed (replace-one). "
        "example: one whole example added or removed; label-DP mechanisms do not give it.",
    )
    confident = sure_box.checkbox(
        "Every seed",
        key="confident",
        bind="query-params",
        help="The lower band (the worst of the seeds), not the mean, must reach the target.",
    )
    return kind, value, unit, confident


def _answers(
    controls: Controls, kind: str, value: float, unit: str, confident: bool
) -> tuple[Choice | None, Answer | None]:
    """Draw the answer per privacy unit, the nearest when none reaches, and the table.

    Returns the choice (None when the target itself was refused) and the answer whose risk
    the page states: the best that reaches the target, else the nearest that reaches.
    """
    choice = None
    with reported_errors():
        choice = _choice(
            controls.dataset, kind, value, unit, confident, controls.epochs_asked, controls.model
        )
    if choice is None:
        return None, None
    if choice.beyond:
        st.warning(choice.beyond[0].upper() + choice.beyond[1:] + ".")
    said = headlines(choice)
    if said:
        st.markdown("\n".join(f"- {_unbroken(headline.text)}" for headline in said))
    offered = _nearest(controls, choice)
    _table(controls, choice)
    return choice, choice.reached[0] if choice.reached else offered


def _unbroken(text: str) -> str:
    """``text`` with no line break after an ε or a ≈ (no 'ε ≈' ending one line, '2.83' the next)."""
    return text.replace("ε ", "ε\u00a0").replace("≈ ", "≈\u00a0")


def _nearest(controls: Controls, choice: Choice) -> Answer | None:
    """When nothing reaches the target, draw the nearest that does; return its first answer."""
    other = None
    if choice.target.unit == "example" and not choice.reached:
        with reported_errors():
            target = choice.target
            other = _choice(
                controls.dataset,
                target.kind,
                target.value,
                "label",
                target.confident,
                controls.epochs_asked,
                controls.model,
            )
    offers = nearest(choice, other)
    if offers:
        st.markdown(
            "Nothing reaches the target; the nearest that does, on the same curves:\n"
            + "\n".join(f"- {_unbroken(offer.text)}" for offer in offers)
        )
    return next((offer.answer for offer in offers if offer.answer is not None), None)


def _table(controls: Controls, choice: Choice) -> None:
    """Draw the table of the smallest ε per mechanism, its caption and how each was read."""
    rows = [a.row() | {"mechanism": mechanism_title(a.mechanism)} for a in choice.answers]
    if not rows:
        st.info(
            f"No curve of {controls.dataset_name} is computed yet: warm the cache (sidebar, or "
            f"`python -m labeldp_core warm --dataset {controls.dataset}`)."
        )
        return
    st.dataframe(rows, hide_index=True, key="answers", row_height=ROW_PX)
    metric = choice.target.metric
    st.caption(
        f"On {controls.dataset_name}: {choice.target.describe()}. 'smallest ε' is the smallest "
        "ε whose curve (the mean over the seeds) reaches the target, read on the straight line "
        "(log ε) between the computed ε around it: an ε marked ≈ is interpolated, not "
        "computed; nothing is read beyond the largest computed ε. 'seeds' spread' is where the "
        "best and the worst seed reach it. 'ε for your unit' is the ε the accounting spent "
        "there, read for the privacy unit you need (an example-level ε is doubled for one "
        f"label). '{metric}' is the mean score there."
        + (
            f" {choice.missing} runs of the grid are not cached: an ε missing a seed is left out."
            if choice.missing
            else ""
        )
    )
    with st.expander("How each answer was read"):
        st.markdown(
            "\n".join(f"- {a.sentence(mechanism_title(a.mechanism))}" for a in choice.answers)
        )


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


def _image_prior(controls: Controls, found: list[RunResult]) -> Prior | None:
    """What a model of the public image tells an attacker: the pages' one clean baseline.

    The runs keep their clean model's test accuracy (the model trained on the true labels),
    not its confidence per image: that accuracy is how often a model of the image alone names
    the true label, the stand-in for π that the page says it is. While a demo seed's clean
    model is missing, the runs of the mechanisms that train that model stand in (the DP
    prototypes' own reference is another classifier).
    """
    trained = [r for r in found if MECHANISMS[r.mechanism].trains_model]
    line = clean_line(
        controls.dataset, controls.model, controls.epochs_asked, result_cache(), trained
    )
    return image_prior(line)


def _afford(found: list[RunResult], unit: str, classes: int, prior: Prior | None) -> None:
    """Draw 'I can afford ε = x': each mechanism's score at the grid ε nearest x, and x's risk."""
    st.subheader("I can afford ε = x")
    afford = st.number_input("x", 0.01, 100.0, 1.0, key="afford", bind="query-params")
    at_x = summary_at(found, afford)
    if at_x:
        st.dataframe([_afford_row(r) for r in at_x], hide_index=True, key="afford_table")
        st.caption(
            "Each mechanism at the computed grid ε nearest x (as Compare's summary), best "
            "first within each privacy unit."
        )
    try:
        st.markdown(risk_of(afford, classes, unit, 0.0, prior).line())
    except LabelDPError as exc:
        st.error(str(exc))


def _afford_row(row: dict) -> dict:
    """A row of Compare's summary (its scores already in the one score format) with the
    mechanism's title."""
    return row | {"mechanism": mechanism_title(row["mechanism"])}


def _risk_of_answer(answer: Answer | None, classes: int, prior: Prior | None) -> None:
    """The risk of the answer's ε for one label in one sentence, the scale and the formulas."""
    if answer is None:
        return
    # Three digits, as the headline answer above it writes the same ε (≈ 1.97).
    near = (answer.near or "= ") + epsilon_text(answer.epsilon_spent, digits=3)
    st.subheader(f"What ε {near} ({mechanism_title(answer.mechanism)}) adds to an attacker's guess")
    risk = risk_of(answer.epsilon_spent, classes, answer.privacy_unit, answer.delta, prior)
    st.markdown(_unbroken(risk.line(approximate=answer.interpolated)))
    how = [scale_sentence(classes), f"Odds: {FORMULAS['odds']}.", f"Guess: {FORMULAS['guess']}."]
    if prior is not None:
        how.append(
            "The image's π is the clean model's test accuracy: how often a model of the image "
            "alone names the true label, standing in for a public model's confidence."
        )
    if answer.privacy_unit == "example":
        how.append(f"Example-level: {FORMULAS['example']}.")
    st.caption(" ".join(how))


render()
