"""Privacy audit: a mechanism and its broken control on neighbours, claimed ε vs the lower bound."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text, proven_text
from labeldp_core.choosing.headline import mechanism_title
from labeldp_core.release_audit.bounds import largest_provable_epsilon
from labeldp_core.release_audit.engine import AuditResult
from labeldp_core.services.release_audits import APP_EPSILON, APP_TRIALS, CASES
from ui.audit import audit_with_progress, case_title, power_metric, verdict
from ui.controls import current_controls
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.model_audit import trained_model_section
from ui.results import reported_errors

TRIAL_CHOICES = (20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
ALPHA = 0.05  # the audit's default: 95% confidence


def render() -> None:
    """Draw the page: the claimed ε, the audit chart under it, the case, verdicts, the details."""
    controls = current_controls()
    st.title("Privacy audit")
    epsilon = epsilon_control(default=APP_EPSILON, label="Claimed ε")
    headline = st.container()  # the claims against the proven bounds, right under the ε control
    st.markdown(
        "A privacy claim can be tested. The audit runs the mechanism's own release many times on "
        "two inputs that differ in one label (or one example, or one teacher's vote) and measures "
        "how much likelier some outcome is under one than the other. An ε-DP mechanism can never "
        "make it more than e^ε times likelier, so a measured ratio above that **refutes the "
        "claim**; below it, this audit found no leak."
    )
    with st.expander("How the bound is computed"):
        st.markdown(
            "The audit picks the output event that tells the two inputs apart best on one sample, "
            "then, on a fresh sample, bounds the two probabilities of that event with "
            "Clopper-Pearson intervals (as in Jagielski et al. 2020 and DP-Sniper). The ratio of "
            "the bounds, minus δ, gives a *lower bound on the real ε* at the stated confidence."
        )
    mechanism, trials = _audit_case()
    with reported_errors():
        results = audit_with_progress(mechanism, epsilon, trials, controls.seed)
    ceiling = largest_provable_epsilon(trials, ALPHA)
    named = [replace(result, name=case_title(result.name)) for result in results]
    chart(headline, plots.audit_figure, named, ceiling, key="audit_chart")
    headline.caption(
        "Grey bars are the claimed ε, diamonds the lower bound the audit proved with "
        f"{trials:,} draws per neighbour. A green diamond inside its bar is consistent with the "
        "claim; a red one beyond its bar proves that the mechanism leaks more than it says, which "
        "is what every control should show."
    )
    _verdicts(results)
    _limits(results, epsilon, trials, ceiling)
    st.subheader("What a lower bound means")
    st.markdown(
        "A lower bound can only ever *refute* a claim: if it exceeds the claimed ε, the mechanism "
        "(or its accounting) is wrong, with the stated confidence. A bound below the claim never "
        "proves a mechanism private: it says that this pair of inputs and these events found no "
        "leak, and other inputs or a bug the events do not look at could still hide one. "
        "A bound close to the claim shows that the audit had the power to catch a leak of that "
        "size."
    )
    _events(results, mechanism, epsilon, trials, controls.seed)
    trained_model_section(mechanism, epsilon, controls)


def _audit_case() -> tuple[str, int]:
    """Draw the mechanism and the draws per neighbour side by side; return both."""
    left, right = st.columns(2)
    mechanism = linked(
        left.selectbox,
        "Mechanism",
        "mechanism",
        list(CASES),
        index=list(CASES).index("laplace"),
        labels=mechanism_title,
        help="Its release step is audited next to a deliberately broken control.",
    )
    trials = linked(
        right.selectbox,
        "Draws per neighbour",
        "trials",
        TRIAL_CHOICES,
        index=TRIAL_CHOICES.index(APP_TRIALS),
        help="Each neighbour is sampled this many times to pick the event, and as many again to "
        "bound it. More draws give a tighter bound and catch smaller leaks.",
    )
    return mechanism, int(trials)


def _verdicts(results: list[AuditResult]) -> None:
    """Draw each case's verdict with its claim, its proven lower bound and the audit's power."""
    st.subheader("Verdicts")
    for result in results:
        st.markdown(f"**{case_title(result.name)}**: {verdict(result)}")
        cols = st.columns(3)
        delta = f", δ = {result.claimed_delta:g}" if result.claimed_delta else ""
        cols[0].metric(f"Claimed ε{delta}", epsilon_text(result.claimed_epsilon))
        cols[1].metric(
            f"Lower bound ({100 * result.confidence:g}% confidence)",
            proven_text(result.epsilon_lower_bound),
            delta=f"{result.epsilon_lower_bound - result.claimed_epsilon:+.3f} vs claim",
            delta_color="inverse",
        )
        cols[2].metric(*power_metric(result))


def _limits(results: list[AuditResult], epsilon: float, trials: int, ceiling: float) -> None:
    """Say what these draws can and cannot refute: the Gaussian claims, the power, the ceiling."""
    if any(r.claimed_delta > 0 for r in results):
        st.caption(
            "A Gaussian case (PATE's GNMax, DP-SGD, DPPL-Mean) runs at the noise its accounting "
            "calibrated for ε with δ = 1e-5, but claims a point of the Gaussian mechanism's exact "
            "privacy curve at that noise: tighter than the accountant's figure, so that a release "
            "with less noise than reported cannot hide in the accountant's slack."
        )
    st.caption(
        "'Would catch an overspend' is the audit's power: a release spending that much more than "
        "its claim would have been refuted with these draws (claim ÷ bound − 1); more draws "
        "shrink it."
    )
    missed = [r for r in results if r.is_control and not r.violates]
    if missed:
        st.info(
            f"The control was not caught here: at ε = {epsilon:g} with {trials:,} draws the "
            "audit cannot separate it from its claim. More draws, or a larger ε, give it the "
            "power to."
        )
    if max(r.claimed_epsilon for r in results) > ceiling:
        st.info(
            f"With {trials:,} draws per neighbour no audit can prove more than ε ≈ "
            f"{epsilon_text(ceiling)} (every draw of one neighbour and none of the other in the "
            "event), so claims above it cannot be refuted: mechanism and control look alike."
        )


def _events(
    results: list[AuditResult], mechanism: str, epsilon: float, trials: int, seed: int
) -> None:
    """Draw, in an expander, each case's neighbours, chosen event and its two probabilities."""
    with st.expander("Neighbouring inputs and chosen events"):
        st.dataframe(
            pd.DataFrame(
                {
                    "case": [case_title(r.name) for r in results],
                    "neighbours": [r.neighbours for r in results],
                    "event": [r.event for r in results],
                    "P(event | D0)": [r.p0 for r in results],
                    "P(event | D1)": [r.p1 for r in results],
                }
            ),
            hide_index=True,
        )
        st.caption(
            "Each output gets a score that grows with how much more it suggests one input than "
            "the other; the event is a threshold on it. In detail: the score is the "
            "log-likelihood ratio of the two inputs where it has a "
            "closed form (the most powerful test), else a statistic monotone in it. The event is "
            "a threshold on the score, chosen on the first sample; the probabilities are measured "
            "on the second. Reproduce with `python -m labeldp_core audit "
            f"{mechanism} --epsilon {epsilon:g} --trials {trials} --seed {seed}`."
        )


render()
