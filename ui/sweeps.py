"""A button that fills missing points of a page's sweep, under a progress bar, then redraws.

While a warm of the points' dataset runs on this server and every missing point is one it
computes (the demo grid), a line says so instead of the button: the warm computes the first
seed of every curve before the other seeds (their band), so a page opened during a warm draws
the seeds stored, and a click would only compute the same points twice.
"""

import streamlit as st

from labeldp_core.experiments import RunConfig
from labeldp_core.experiments.demo import on_demo_grid
from ui.results import READ_ONLY_NOTE, button_label, estimate, read_only, run_with_progress
from ui.warm_panel import running_warm

__all__ = ["compute_button", "status_sentence"]

#: The line shown instead of the button while a warm computes the missing points.
WARM_COMPUTES = (
    "The warm running on this server computes these points (the first seed of every curve "
    "first, then the others): they are drawn as you move a control or reopen the page."
)


def _warm_computes(absent: list[RunConfig]) -> bool:
    """Whether a warm running now computes every point of ``absent`` (none: False)."""
    datasets = {config.dataset for config in absent}
    return (
        len(datasets) == 1
        and running_warm(datasets.pop()) is not None
        and all(on_demo_grid(config) for config in absent)
    )


def compute_button(absent: list[RunConfig], label: str, key: str) -> None:
    """Offer a button that computes ``absent`` and says how long it takes; redraw when done.

    Nothing is shown when ``absent`` is empty; a line when a running warm computes them.
    """
    if absent and _warm_computes(absent):
        st.caption(WARM_COMPUTES)
    elif absent and read_only():
        st.caption(READ_ONLY_NOTE)
    elif absent and st.button(button_label(label, absent, estimate(absent)), key=key):
        run_with_progress(absent, label)
        st.rerun()


def status_sentence(absent: list[RunConfig]) -> str:
    """One sentence saying whether the figure above is complete."""
    if not absent:
        return "Every point of this figure is cached."
    count = f"{len(absent)} point{'s are' if len(absent) != 1 else ' is'} not computed yet"
    if _warm_computes(absent):
        return (
            f"{count}; the warm running on this server computes them, and the lines and bands "
            "are drawn from the seeds stored so far."
        )
    if read_only():
        return f"{count}; this read-only server shows only the points computed before class."
    return f"{count}; the button computes and caches each one."
