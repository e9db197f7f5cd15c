"""LabelDP-Pro: DP-SGD on the labels, its noisy gradients denoised by a label-free projection."""

import streamlit as st

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text
from labeldp_core.experiments import RunConfig, RunResult, make_config
from labeldp_core.families.labeldp_pro.accounting import REPLACE_ONE
from labeldp_core.families.labeldp_pro.experiment import trained_model_words
from ui.clean import page_clean_line
from ui.controls import Controls, current_controls
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import computed_stops, replay_caption, reported_errors, result_for

#: The smoothing control's first choice: whatever the run's defaults say (λ from the noise).
_RECIPE = "recipe"


def render() -> None:
    """Draw the page: ε and the run's accuracy by epoch first, then what the method does."""
    controls = current_controls()
    st.title("LabelDP-Pro")
    settings = controls.settings | _projection_settings(controls.dataset)
    epsilon = epsilon_control(grid=computed_stops("labeldp-pro", controls, settings))
    with reported_errors():
        config = make_config(
            "labeldp-pro", controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        )
        result = result_for(
            config,
            f"Train LabelDP-Pro at ε = {epsilon:g} on {controls.dataset_name}",
            "Training with LabelDP-Pro",
        )
    _run(result, epsilon, controls)
    st.markdown(
        "LabelDP-Pro (Ghazi et al., ICLR 2024) runs DP-SGD on the private labels, then replaces "
        "each noisy gradient by its projection onto gradients computed from the images alone, "
        "for every possible label, and steps along a mix of the projection and the noisy "
        "gradient. The images are public under label DP, so the projection costs no privacy: it "
        "only removes noise that no real labelling could produce."
    )


def _projection_settings(dataset: str) -> dict:
    """Draw the projection's two controls in the sidebar; return them as run settings.

    The smoothing's first choice is the defaults (λ from the noise, the rate with it); a number
    fixes λ and the rate.
    """
    recipe = make_config("labeldp-pro", dataset, 1.0)  # the defaults are the same at every ε
    smoothing = linked(
        st.sidebar.selectbox,
        "Smoothing λ of the projection",
        "smoothing",
        (_RECIPE, 0.75, 0.7, 0.8, 0.85, 1.0),
        labels=lambda choice: _smoothing_label(choice, recipe),
        help="The step is λ × the projection + (1 − λ) × the noisy gradient (it measured higher "
        "here than the paper's smoothing of the weights towards uniform ones, `--set "
        "smooth_towards=uniform`; the paper searched λ from 0.7 to 0.85); 1 takes the "
        "projection alone. From the noise, λ = r² / (1 + r²) with r the noise's expected norm "
        "over the clip: near 1 at small ε, near 0 (plain DP-SGD) where the noise is small.",
    )
    public_batch = linked(
        st.sidebar.selectbox,
        "Projection batch n2 (images, no labels)",
        "public_batch",
        (100, 50, 200),
    )
    chosen = {} if smoothing == _RECIPE else {"smoothing": smoothing, "smoothing_rule": "fixed"}
    return chosen | {"public_batch": public_batch}


def _smoothing_label(choice: object, recipe: RunConfig) -> str:
    """The smoothing control's label: a number as it is, the defaults' choice spelled out."""
    if choice != _RECIPE:
        return f"{choice:g}"
    if recipe.setting("smoothing_rule") == "noise":
        return "from the noise (the default)"
    return f"{recipe.setting('smoothing'):g} (the default)"


#: What the caption adds when the model read the images' patch features rather than the pixels.
_PATCHES = (
    " on label-free patch features (learnt from the images alone, so they cost no label "
    "privacy; a small model on them takes less of the noise than a CNN on the pixels)"
)

#: How the run's ε reads a changed label: by group privacy (False) or replace-one (True).
_ACCOUNTING = {
    False: "Changing a label is removing its example and adding it back, so the run spends half "
    "its ε on DP-SGD's add/remove accounting.",
    True: "Only the label changes, so the example's chance of being in a batch is the same in "
    "both worlds: the run is accounted for replacing one gradient (dp_accounting's privacy loss "
    "distributions), about half the noise of reading DP-SGD's add/remove ε for a label. That "
    "the one-dimensional worst case covers gradient vectors rests on a reduction to two "
    "dimensions whose last step is checked numerically over angles and norms, not proved "
    "(the family's README).",
}


def _run(result: RunResult | None, epsilon: float, controls: Controls) -> None:
    """Draw the run at ``epsilon``: its test accuracy by epoch and what it spent, or a hint."""
    if result is None:
        st.info("Not computed yet: the button under the ε control trains it; it is then cached.")
        return
    clean = page_clean_line(controls, [result])
    chart(
        st,
        plots.accuracy_by_epoch,
        result.details["test_curve"],
        epsilon,
        clean.score,
        key="labeldp_pro_curve",
    )
    trained = result.details.get("model_trained", controls.model)
    inputs = _PATCHES if result.details.get("features", "").startswith("label-free") else ""
    if trained == controls.model and not inputs:
        model = "; the dotted line is the same model trained on the true labels"
    else:
        words = trained_model_words(trained, controls.model, controls.dataset)
        model = (
            f" trains {words}{inputs}; the dotted line is the {controls.model} trained on the "
            "true labels"
        )
    st.caption(
        f"The run on seed {result.seed}{model} ({clean.words}). Noise multiplier σ = "
        f"{result.details['noise_multiplier']:.3g} over "
        f"{result.details['steps']:,} steps; ε spent "
        f"{epsilon_text(result.epsilon_spent, result.epsilon)} for one label "
        f"(δ = {result.delta:.2g}). {_ACCOUNTING[result.details['accountant'] == REPLACE_ONE]}"
    )
    replay_caption(st, result)


render()
