"""A button that fills missing points of a page's sweep, under a progress bar, then redraws."""

import streamlit as st

from labeldp_core.experiments import RunConfig
from ui.results import READ_ONLY_NOTE, button_label, estimate, read_only, run_with_progress

__all__ = ["compute_button", "status_sentence"]


def compute_button(absent: list[RunConfig], label: str, key: str) -> None:
    """Offer a button that computes ``absent`` and says how long it takes; redraw when done.

    Nothing is shown when ``absent`` is empty.
    """
    if absent and read_only():
        st.caption(READ_ONLY_NOTE)
    elif absent and st.button(button_label(label, absent, estimate(absent)), key=key):
        run_with_progress(absent, label)
        st.rerun()


def status_sentence(absent: list[RunConfig]) -> str:
    """One sentence saying whether the figure above is complete."""
    if not absent:
        return "Every point of this figure is cached."
    return (
        f"{len(absent)} point{'s are' if len(absent) != 1 else ' is'} not computed yet; the "
        "button computes and caches each one."
    )
