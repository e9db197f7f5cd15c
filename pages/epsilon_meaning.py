"""What epsilon means: the guessing bound for one label and attacks measured against it."""

import streamlit as st

from labeldp_core import plots
from labeldp_core.accounting.risk import FORMULAS, risk_of, scale_sentence
from labeldp_core.base.numbers import epsilon_text, in_words
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult, sweep_configs
from labeldp_core.experiments.demo import DEMO_EPSILONS, DEMO_SEEDS, demo_configs
from labeldp_core.model_audit import inference_points
from labeldp_core.registry import TRAINS_ON_RELEASED_LABELS
from ui.controls import Controls, current_controls
from ui.epsilon import epsilon_control
from ui.export import chart, csv_button
from ui.guess_game import guess_game
from ui.results import reported_errors, stored_many
from ui.sweeps import compute_button, status_sentence

#: Those whose release starts from a prior read off the public image: their bound is its own.
WITH_PRIOR = {"rr-prior", "lp-2st"}


def render() -> None:
    """Draw the page: ε and its bound, the risk numbers, the guessing game, measured attacks."""
    controls = current_controls()
    st.title("What ε means")
    epsilon = epsilon_control(grid=DEMO_EPSILONS)
    num_classes = dataset_info(controls.dataset).num_classes
    chart(st, plots.guess_bound_figure, num_classes, epsilon, key="bound")  # under the ε control
    st.caption(
        "Each curve is the worst case over every possible adversary and mechanism with this ε. "
        "Small ε keeps a guesser close to where it started; at ε = 5 or more the promise is weak."
    )
    _risk_metrics(epsilon, num_classes)
    _promise(epsilon, num_classes)
    _guessing(controls, epsilon)
    _attacks(controls, epsilon, num_classes)
    _inference(controls, epsilon)


def _risk_metrics(epsilon: float, num_classes: int) -> None:
    """Draw the risk numbers of ``epsilon`` for one label, each with its formula as help.

    Then Choose ε's risk sentence and the scale: no attack gain beside the guess, which a reader
    took for a chance of guessing the label (issue 53).
    """
    risk = risk_of(epsilon, num_classes)
    odds, guess, example = st.columns(3)
    odds.metric("Odds moved by at most", risk.odds_text, help=FORMULAS["odds"])
    guess.metric(
        f"Guess of one label, uniform prior (π = 1/{num_classes}, image unseen)",
        f"≤ {risk.guess:.1%}",
        f"blind: {risk.blind:.1%}",
        delta_color="off",
        help=FORMULAS["guess"],
    )
    as_example = risk_of(epsilon, num_classes, "example")
    example.metric(
        "Example-level ε, for one label",
        epsilon_text(as_example.epsilon),
        f"odds ≤ {as_example.odds_text}",
        delta_color="off",
        help=FORMULAS["example"],
    )
    st.caption(
        f"K = {num_classes}. {risk.line()} {scale_sentence(num_classes)} An example-level "
        f"ε = {epsilon:g} (DP-SGD, DP prototypes) protects one label as ε = "
        f"{epsilon_text(as_example.epsilon)} does."
    )


def _promise(epsilon: float, num_classes: int) -> None:
    """Say in words what label DP promises at ``epsilon``, with the uniform-prior bound."""
    st.markdown(
        "Label DP (replace-one) promises this: an adversary who knows **everything** about the "
        "training set except one label, and sees what was released (the noisy labels or the "
        "trained model), changes its odds between any two values of that label by a factor of at "
        f"most e^ε. If it starts with no idea (each of the K = {num_classes} classes equally "
        f"likely), it can guess right with probability at most e^ε/(e^ε+K−1) = "
        f"**{plots.guess_bound(epsilon, 1 / num_classes):.3f}** at ε = {epsilon:g}. If it already "
        "believes a label with probability π, it ends at most at πe^ε/(πe^ε+1−π): ε bounds what "
        "the release adds to what was already known, not what can be known."
    )


def _guessing(controls: Controls, epsilon: float) -> None:
    """Draw the guessing game for one visitor, then the way to the class's round."""
    st.subheader("Guess the label")
    st.markdown(
        "Play the adversary. One training label is released by randomized response at the ε "
        "above; guess the true one. The image is hidden, so you start with no idea, as the bound "
        "assumes; with it you would start from your own eyes, a prior π."
    )
    guess_game(load_dataset(controls.dataset), epsilon)
    st.page_link(  # the class plays it on their phones, run from the top of its own page
        "pages/play.py",
        label=f"Play it as a class: open a round at ε = {epsilon:g} on the Class round page",
        icon=":material/smartphone:",
    )


def _attacks(controls: Controls, epsilon: float, num_classes: int) -> None:
    """Draw the three measured guesses of a training label per mechanism, read against bounds."""
    st.subheader(f"Attacks measured at ε = {epsilon:g} on {controls.dataset_name}")
    found, absent = _attack_points(controls, epsilon)
    rows = _attack_rows(found)
    chart(st, plots.attack_bars, rows, epsilon, num_classes, key="bars")
    st.caption(
        "Three guesses of a training example's true label: the label that was released for it, "
        "the released model's prediction on it, and (for comparison) the same model's accuracy "
        f"on test examples it never saw; one model per mechanism, seed {controls.seed} (a mean "
        "over seeds would train three times as many models for one ε). "
        + status_sentence(absent)
        + _missing_bounds(rows)
    )
    st.markdown(
        "**Reading the gap.** Each black tick is the bound its own bar must stay under, from what "
        "the guess knows before the release. RR, Laplace and ALIBI release a label from nothing "
        "else, so its bound is the uniform-prior one, e^ε/(e^ε + K − 1): randomized response sits "
        "on it, the best possible for that adversary. **The image is public, so RR-with-prior's "
        "guess starts above 1/K**: it answers from the labels an image's neighbours point to, and "
        "its tick is the bound for an adversary who knows that much (the best share any ε-DP "
        "release can reach from that prior), not a broken promise. ε limits what the release adds "
        "to the image. The model's guess on a training example starts from what the model knows "
        "without that label, its accuracy on examples it never saw (π), so its bound is "
        "π e^ε/(π e^ε + 1 − π): a model that simply learned the task is near its held-out "
        "accuracy, far below that bound. What ε limits is the gap between a training example and "
        "a held-out one. The model trained on clean labels has no bound: its gap is what "
        "memorising labels looks like, and what label DP takes away."
    )
    csv_button(rows, f"attacks-{controls.dataset}-eps{epsilon:g}.csv", key="csv")


def _attack_points(controls: Controls, epsilon: float) -> tuple[list[RunResult], list[RunConfig]]:
    """The attacked mechanisms' runs at ``epsilon``: those stored, those not yet.

    Draws the button that trains the missing ones.
    """
    with reported_errors():
        configs = []
        for mechanism in TRAINS_ON_RELEASED_LABELS:
            configs += sweep_configs(
                mechanism,
                controls.dataset,
                [epsilon],
                [controls.seed],
                controls.epochs_asked,
                controls.settings,
            )
        found, absent = stored_many(configs)
        compute_button(absent, "Train the models", key="compute_attacks")
    return found, absent


def _attack_rows(found: list[RunResult]) -> list[dict]:
    """One row per stored run (its three guesses), then the clean-label model's, if any run."""
    rows = []
    for result in found:
        attack = result.details.get("attack", {})
        rows.append(
            {
                "mechanism": MECHANISMS[result.mechanism].title,
                "released_label": result.label_accuracy,
                "model_on_training_example": attack.get("train_accuracy"),
                "model_on_test_example": attack.get("test_accuracy"),
                **(
                    {"released_label_bound": result.details.get("prior_guess_bound")}
                    if result.mechanism in WITH_PRIOR
                    else {}
                ),
            }
        )
    if found:
        attack = found[0].details.get("attack", {})
        rows.append(
            {
                "mechanism": "no privacy (clean labels)",
                "private": False,
                "released_label": 1.0,
                "model_on_training_example": attack.get("clean_model_train_accuracy"),
                "model_on_test_example": found[0].baseline_test_accuracy,
            }
        )
    return rows


def _inference(controls: Controls, epsilon: float) -> None:
    """Draw the label-inference gain of each attacked mechanism across ε, under its bound."""
    st.subheader("Label inference across ε")
    with reported_errors():
        configs = demo_configs(
            controls.dataset,
            list(TRAINS_ON_RELEASED_LABELS),
            DEMO_SEEDS,
            controls.epochs_asked,
            controls.model,
            variants=False,
            class_stops=False,
        )
        found, absent = stored_many(configs)
        compute_button(absent, "Train the models across ε", key="compute_inference")
    titles = {mechanism: MECHANISMS[mechanism].title for mechanism in TRAINS_ON_RELEASED_LABELS}
    points = inference_points(found)
    chart(st, plots.inference_gain_figure, points, epsilon, titles, key="inference")
    st.caption(
        "An attacker who knows a training image guesses its label with the released model's "
        "prediction. Its gain is how much more often that is right on the training set than a "
        "clean model is on images it never saw (what the image alone tells); ε-label-DP caps "
        "the gain at 1 − e^−ε (Wu et al., AISTATS 2023), the dashed line. Each line is the mean "
        f"over seeds {in_words(DEMO_SEEDS)}, the band their range. " + status_sentence(absent)
    )


def _missing_bounds(table: list[dict]) -> str:
    """A sentence naming the rows computed before their prior's bound was stored (no tick)."""
    names = [
        row["mechanism"]
        for row in table
        if "released_label_bound" in row and row["released_label_bound"] is None
    ]
    if not names:
        return ""
    return (
        f" {' and '.join(names)}: computed before its prior's bound was stored, so its released "
        "label has no tick; compute the point again in an empty cache to draw it."
    )


render()
