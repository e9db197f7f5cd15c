"""Laplace noise: density for the chosen epsilon, drawn noise, tails, calculator, secure mode."""

import math

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.mechanisms import epsilon_for_noise, laplace_cdf, laplace_scale, tail_probability
from labeldp_core.noise.noise_plans import laplace_plan
from ui.controls import current_controls
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import reported_errors

COMPARE_CHOICES = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
DRAWS = 10_000


def render() -> None:
    """Draw the page: ε, the density under it, the tails, the calculator, then secure mode."""
    controls = current_controls()
    st.title("Laplace noise")
    epsilon = epsilon_control()
    headline = st.container()  # the density, right under the ε control
    sensitivity, compare, magnitude = _noise_controls()
    with reported_errors():
        scale = laplace_scale(sensitivity, epsilon)
    others = [e for e in compare if not math.isclose(e, epsilon)]
    draws = np.random.default_rng(controls.seed).laplace(0.0, scale, DRAWS)
    _density(headline, sensitivity, epsilon, others, draws, scale)
    st.markdown(
        "The Laplace mechanism adds noise with density e^(−|x|/b)/(2b) to a value that one person "
        "can change by at most Δ (the *sensitivity*, measured in L1). With scale b = Δ/ε, moving "
        "the value by Δ changes the density of any output by at most a factor e^ε: that is ε-DP. "
        "Δ is 2 for a one-hot label or a probability vector (two of them differ by at most 2 in "
        "L1) and K−1 for a label value 0..K−1 used as a regression target."
    )
    _tails(sensitivity, epsilon, magnitude, others, scale)
    _calculator(sensitivity, magnitude)
    _secure_mode(sensitivity, epsilon)


def _noise_controls() -> tuple[float, list[float], float]:
    """Draw the sensitivity, the ε values to compare and the noise magnitude, in three columns.

    Returns:
        The sensitivity Δ, the ε values to compare with, and the noise magnitude t.
    """
    left, middle, right = st.columns(3)
    sensitivity = left.number_input(
        "Sensitivity Δ",
        min_value=0.01,
        max_value=1000.0,
        value=2.0,
        step=1.0,
        key="sensitivity",
        bind="query-params",
        help="2 for one-hot labels and probability vectors, K−1 for values 0..K−1",
    )
    compare = linked(
        middle.multiselect, "Compare with ε", "compare", COMPARE_CHOICES, default=[0.5, 2.0]
    )
    magnitude = right.number_input(
        "Noise magnitude t",
        min_value=0.001,
        max_value=1e4,
        value=1.0,
        step=0.5,
        key="magnitude",
        bind="query-params",
        help="used by the tail probability and the calculator below",
    )
    return sensitivity, compare, magnitude


def _density(
    headline: DeltaGenerator,
    sensitivity: float,
    epsilon: float,
    others: list[float],
    draws: np.ndarray,
    scale: float,
) -> None:
    """Draw the density and the seeded draws into ``headline``, then the scale's four metrics."""
    chart(
        headline, plots.laplace_density_figure, sensitivity, epsilon, others, draws, key="density"
    )
    cols = st.columns(4)
    cols[0].metric("Scale b = Δ/ε", f"{scale:.4g}")
    cols[1].metric(
        "Std √2·b", f"{math.sqrt(2) * scale:.4g}", help="standard deviation of the noise"
    )
    cols[2].metric("Measured std", f"{draws.std():.4g}", help=f"of the {DRAWS:,} draws")
    cols[3].metric("Half within ±", f"{scale * math.log(2):.4g}", help="half the noise lies within")
    st.caption(
        f"The black curve is the density at ε = {epsilon:g}; the bars are {DRAWS:,} draws from it "
        "(seed from the sidebar) and follow it up to sampling noise. Halving ε doubles b: the "
        "peak halves and the tails stretch, which is what a smaller privacy budget costs."
    )


def _tails(
    sensitivity: float, epsilon: float, magnitude: float, others: list[float], scale: float
) -> None:
    """Draw the tail probability P(|noise| > t) against t and say it at the chosen t."""
    st.subheader("How far can the noise go?")
    chart(st, plots.tail_probability_figure, sensitivity, epsilon, magnitude, others, key="tails")
    beyond = float(tail_probability(magnitude, scale))
    st.caption(
        f"P(|noise| > t) = e^(−t/b) = e^(−{magnitude:g}/{scale:.4g}) = {beyond:.4g} at "
        f"ε = {epsilon:g}: "
        f"about one draw in {1 / beyond:,.0f} lands further than {magnitude:g} from zero. The "
        "tails fall exponentially, so large errors are rare but never impossible."
        if beyond > 0
        else f"At ε = {epsilon:g} the noise essentially never exceeds {magnitude:g}."
    )


def _calculator(sensitivity: float, magnitude: float) -> None:
    """Draw the calculator: the ε that keeps the noise within ±t with probability p, worked."""
    st.subheader("Calculator: which ε keeps the noise within ±t?")
    probability = st.number_input(
        "Probability p that |noise| ≤ t",
        min_value=0.01,
        max_value=0.999,
        value=0.9,
        step=0.05,
        format="%.3f",
        key="probability",
        bind="query-params",
    )
    with reported_errors():
        needed = epsilon_for_noise(magnitude, probability, sensitivity)
    check = float(
        laplace_cdf(magnitude, sensitivity / needed) - laplace_cdf(-magnitude, sensitivity / needed)
    )
    st.markdown(
        f"""
We want P(|noise| ≤ t) = p with t = {magnitude:g}, p = {probability:g} and Δ = {sensitivity:g}.

1. For Lap(0, b), P(|noise| ≤ t) = 1 − e^(−t/b), so we need
   e^(−t/b) = 1 − p = {1 - probability:.4g}.
2. Taking logarithms, t/b = ln(1/(1 − p)) = {-math.log1p(-probability):.4g},
   so b = {magnitude:g} / {-math.log1p(-probability):.4g} = {sensitivity / needed:.4g}.
3. Since b = Δ/ε, **ε = Δ ln(1/(1 − p)) / t = {sensitivity:g} × {-math.log1p(-probability):.4g}
   / {magnitude:g} = {needed:.4g}**.

Check with the Laplace CDF: at ε = {needed:.4g}, F(t) − F(−t) = {check:.4g} = p.
Asking for smaller noise (smaller t) or more certainty (p closer to 1) costs a larger ε.
"""
    )
    st.metric("ε for this noise level", f"{needed:.4g}")


def _secure_mode(sensitivity: float, epsilon: float) -> None:
    """Draw secure mode: exact discrete Laplace draws from os.urandom against their law."""
    st.subheader("Secure mode: exact integer noise")
    st.markdown(
        "NumPy's Laplace noise is a floating-point number whose low-order bits depend on the value "
        "it was added to, so a released number can give the input away exactly (Mironov 2012). "
        "Secure mode (`--set noise=secure`, or the *Noise* selector of the label and PATE pages) "
        "instead adds *discrete* Laplace noise to data that is already integer (one-hot labels, "
        "label values, label and vote counts), drawn by an exact sampler (Canonne, Kamath, "
        "Steinke 2020) that uses integer arithmetic only and the operating system's cryptographic "
        "generator. Its scale is rounded *up* to a fraction, so the ε it guarantees is never "
        "above the one asked for."
    )
    with reported_errors():
        plan = laplace_plan(sensitivity, epsilon, "secure")
    secure_draws = plan.discrete((DRAWS,), np.random.default_rng())  # os.urandom: rng unused
    chart(st, plots.discrete_laplace_figure, plan.scale, secure_draws, key="secure")
    cols = st.columns(3)
    cols[0].metric(
        "Exact scale b", f"{plan.exact_scale}", help="a fraction: Δ/ε rounded up to 1/1000"
    )
    cols[1].metric("ε guaranteed = Δ/b", f"{plan.epsilon_spent:.6g}")
    cols[2].metric(
        "Measured std", f"{secure_draws.std():.4g}", help=f"of the {DRAWS:,} secure draws"
    )
    st.caption(
        f"{DRAWS:,} fresh draws from os.urandom (they change on every rerun) at ε = {epsilon:g} "
        "and Δ above, against the exact probabilities (red) and the continuous density (dotted). "
        "Each integer carries about the mass the continuous density puts around it: the noise "
        "is as large, it only lives on the integers, so the data it is added to must be integers "
        "too."
    )


render()
