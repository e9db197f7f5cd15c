"""The trained model audited with canaries, on the privacy audit page (issues 39 and 54)."""

import pandas as pd
import streamlit as st

from labeldp_core.base.numbers import epsilon_text, proven_text, score_text
from labeldp_core.errors import LabelDPError
from labeldp_core.model_audit import ModelAudit, UntestableClaimError, audit_model, cached_audit
from labeldp_core.model_audit.recipe import AUDIT_RECIPES, describe_recipe
from ui.controls import Controls
from ui.results import READ_ONLY_NOTE, read_only, result_cache

__all__ = ["trained_model_section"]


def _table(audit: ModelAudit) -> pd.DataFrame:
    """One row per training, each quantity in one format (issue 53: 49.8% beside 0.208).

    Every column is text: the accuracies as scores (:func:`score_text`), the ε by
    :func:`epsilon_text` (a proven bound never rounded up: :func:`proven_text`), and whether
    the bound is above the claim in words under a header that names the claim (a bare
    checkbox, unticked, read as a control left unfinished).
    """
    claim = f"above the claim (ε {epsilon_text(audit.label_epsilon)})"
    rows = []
    for estimate in (audit.audited, *audit.controls):
        ran = estimate.run_epsilon
        rows.append(
            {
                "training": estimate.role,
                "ran at ε": "no privacy" if ran is None else epsilon_text(ran),
                "guesses right": f"{estimate.correct}/{estimate.trials}",
                "share right (lower end)": f"{score_text(estimate.accuracy)} "
                f"({score_text(estimate.accuracy_low)})",
                "proven ε ≥": proven_text(estimate.epsilon_lower_bound),
                claim: "yes" if estimate.caught else "no",
                "test accuracy": score_text(estimate.test_score),
            }
        )
    return pd.DataFrame(rows)


def _options(controls: Controls) -> dict:
    """The sidebar's seed, its model and epochs if chosen, and the app's cache, for the audit.

    'auto' epochs leave model and epochs to the audit's recipe for the dataset (a model that
    memorises its canaries, :mod:`labeldp_core.model_audit.recipe`), else the run's defaults.
    """
    chosen = not controls.auto_epochs
    return {
        "seed": controls.seed,
        "epochs": controls.epochs_asked,
        "settings": controls.settings if chosen else None,
        "cache": result_cache(),
    }


def _run(mechanism: str, epsilon: float, controls: Controls) -> ModelAudit:
    bar = st.progress(0.0, text="Training with canaries")

    def progress(share: float, message: str) -> None:
        bar.progress(min(max(share, 0.0), 1.0), text=message)

    audit = audit_model(
        mechanism, controls.dataset, epsilon, **_options(controls), progress=progress
    )
    bar.empty()
    return audit


def trained_model_section(mechanism: str, epsilon: float, controls: Controls) -> None:
    """Audit the model ``mechanism`` trains at ``epsilon`` when asked (three trainings, cached)."""
    st.subheader("The trained model")
    st.markdown(
        "The audit above tests the release. This one tests the end of the pipeline: some "
        "training examples are replaced by noise images no other example resembles, each with "
        "a random wrong label (canaries), the model is trained under the mechanism, and an "
        "attacker guesses each canary's label from the model's output, on the half it is most "
        "sure of. A label-DP model at ε lets it guess right at most e^ε/(1+e^ε) of the time, so "
        "the guesses give a lower bound on the ε really spent (Malek et al. 2021; Steinke et "
        "al. 2023), beside a model trained without privacy and one at twice the budget, which "
        "the audit must catch."
    )
    try:
        audit = _cached(mechanism, epsilon, controls)
    except UntestableClaimError as untestable:  # said before anything trains (PATE)
        st.markdown(f"**Verdict**: {untestable}.")
        return
    if read_only():  # a class sees the audit computed before class, and never trains one
        if audit is None:
            st.info(READ_ONLY_NOTE)
            return
        _show(audit, mechanism, epsilon)
        return
    if not st.toggle("Audit the trained model", key="model_audit", bind="query-params"):
        fashion = AUDIT_RECIPES["fashion-mnist"]
        st.caption(
            "Three trainings (cached). With 'auto' epochs the audit trains its own recipe for the "
            "dataset, a model that memorises its canaries (on fashion-mnist the "
            f"{fashion.model.upper()} over {fashion.epochs} epochs at learning rate "
            f"{fashion.learning_rate:g}), else the run's defaults; choose epochs in the sidebar to "
            "audit the sidebar's model. Models that barely memorise give no verdict."
        )
        return
    try:
        audit = _run(mechanism, epsilon, controls)
    except LabelDPError as exc:
        st.info(str(exc))
        return
    _show(audit, mechanism, epsilon)


def _cached(mechanism: str, epsilon: float, controls: Controls) -> ModelAudit | None:
    """The audit of the sidebar's choices if its trainings are cached; None if not or refused.

    Raises:
        UntestableClaimError: no canary design can test the claim (its reason is the verdict).
    """
    try:
        return cached_audit(mechanism, controls.dataset, epsilon, **_options(controls))
    except UntestableClaimError:
        raise
    except LabelDPError:
        return None


def _show(audit: ModelAudit, mechanism: str, epsilon: float) -> None:
    """The audit's table, its verdict and the command that reproduces it."""
    st.dataframe(_table(audit), hide_index=True)
    if audit.claim_reason is not None:
        st.caption(
            f"The run claims ε {epsilon_text(audit.claimed_epsilon)}; the audit tests the "
            f"model against ε {epsilon_text(audit.label_epsilon)}, tighter: "
            f"{audit.claim_reason}."
        )
    st.markdown(f"**Verdict**: {audit.verdict}.")
    model = f" --set model={audit.model}" if audit.model else ""
    if audit.learning_rate is not None:
        model += f" --set learning_rate={audit.learning_rate:g}"
    command = (
        f"python -m labeldp_core audit {mechanism} --model --dataset {audit.dataset} "
        f"--epsilon {epsilon:g} --epochs {audit.epochs}{model} --seed {audit.seed} "
        f"--canary-kind {audit.canary_kind} --guess-share {audit.guess_share:g}"
    )
    trained = describe_recipe(audit)
    st.caption(
        f"{audit.canaries} {audit.canary_kind} canaries on {audit.dataset}, guesses on the "
        f"{audit.guess_share:.0%} most confident, seed {audit.seed}, {trained}. "
        f"Reproduce with `{command}`."
    )
