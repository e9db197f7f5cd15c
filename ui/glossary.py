"""The glossary every page carries in its sidebar: the words a class needs, each with a number."""

import math

import streamlit as st

from labeldp_core.accounting.units import EXAMPLE_TO_LABEL
from labeldp_core.accounting.zcdp import zcdp_to_approx_dp
from labeldp_core.mechanisms import keep_probability

__all__ = ["GLOSSARY", "glossary"]

#: (term, plain explanation) in the order a class meets them.
GLOSSARY: tuple[tuple[str, str], ...] = (
    (
        "ε (epsilon)",
        "How much one person's data can change what is released: every outcome is at most e^ε "
        f"times likelier with it than without. ε = 1 allows {math.e:.2f} times, ε = 0.1 "
        f"{math.exp(0.1):.2f} times. Smaller ε, more privacy, more noise.",
    ),
    (
        "δ (delta)",
        "The small chance that the ε promise does not hold. (ε, δ) = (3, 10⁻⁵) means: at most "
        f"e³ ≈ {math.exp(3):.0f} times likelier, except with probability 0.00001. Keep δ well "
        "below 1/n: for 60,000 examples 1/n ≈ 0.000017, so 10⁻⁵ is borderline and 10⁻⁶ safer.",
    ),
    (
        "Privacy unit: label",
        "Label DP (replace-one): two training sets that differ in one example's label. The images "
        "are treated as public.",
    ),
    (
        "Privacy unit: example",
        "Example-level DP (add/remove): two training sets that differ by one whole example, image "
        "and label. DP-SGD and the DP prototypes protect this. " + EXAMPLE_TO_LABEL,
    ),
    (
        "Privacy unit: output",
        "Local DP on outputs: two model output vectors, each noised before it leaves; protects one "
        "released prediction, not the training set.",
    ),
    (
        "ε asked vs ε spent",
        "ε asked is the budget you set. ε spent is what the accounting computed for the release "
        "that was actually made: never above the ask, sometimes below (noise rounded up).",
    ),
    (
        "Data-independent vs data-dependent ε",
        "PATE's data-independent ε holds before any vote is seen and may be published. The "
        "data-dependent ε is smaller when teachers agree, but it is computed from the private "
        "votes, so it is itself private.",
    ),
    (
        "zCDP ρ (rho)",
        "Zero-concentrated DP, the budget DPPL-Mean's Gaussian noise is set in: a ρ-zCDP release "
        "is (ρ + 2√(ρ ln(1/δ)), δ)-DP for every δ. Smaller ρ, more privacy: ρ = 0.1 at δ = 10⁻⁵ "
        f"is ({zcdp_to_approx_dp(0.1, 1e-5):.2f}, 10⁻⁵)-DP.",
    ),
    (
        "Canaries",
        "Training examples an audit plants with a random wrong label, to check a claimed ε from "
        "outside: the model is trained with them, and an attacker guesses each canary's label from "
        "the model's output. More right guesses than ε allows prove ε is larger than claimed; at "
        f"ε = 1 with 10 classes no attacker beats e/(e + 9) ≈ {keep_probability(1.0, 10):.0%}.",
    ),
    (
        "Calinski-Harabasz",
        "How well points fall into groups: the spread between the groups' centres over the spread "
        "within the groups (each divided by its degrees of freedom). Higher is cleaner and there "
        "is no upper limit: two groups of 100 points, 10 widths apart, score about 2,500; points "
        "in no groups about 1. Compare it only between pictures of the same points.",
    ),
)


def glossary() -> None:
    """The glossary in a closed expander of the sidebar, below the shared controls."""
    with st.sidebar.expander("Glossary: ε, δ, privacy units", icon=":material/menu_book:"):
        st.markdown("\n\n".join(f"**{term}**: {text}" for term, text in GLOSSARY))
