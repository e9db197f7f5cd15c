"""A button that fills missing points of a page's sweep, under a progress bar, then redraws."""

import streamlit as st

from labeldp_core.experiments import RunConfig
from ui.results import run_with_progress

__all__ = ["compute_button", "status_sentence"]


def compute_button(absent: list[RunConfig], label: str, key: str) -> None:
    """Offer to compute ``absent`` (nothing is shown when it is empty); rerun once they are done."""
    if absent and st.button(f"{label} ({len(absent)} missing points)", key=key):
        run_with_progress(absent, label)
        st.rerun()


def status_sentence(absent: list[RunConfig]) -> str:
    """One sentence saying whether the figure above is complete."""
    if not absent:
        return "Every point of this figure is cached."
    return f"{len(absent)} points are not computed yet; the button trains them and caches each one."
