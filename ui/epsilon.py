"""The epsilon control: one value per session, drawn at the top of every page that uses it.

A log-scale slider and an exact number box show the same value, which lives in one place, the
session's ``_epsilon``: it is not a widget's state, so it survives a move to another page (Streamlit
forgets the state of a page's widgets when another page is shown), and the link's ``epsilon`` is
written from it on every run. Before the widgets are drawn, both are set from that value; each
writes it back when moved. The slider's positions are a log grid plus the exact value, so the two
never disagree (1.37 typed shows 1.37 on the slider too).
"""

import math
from collections.abc import Sequence

import numpy as np
import streamlit as st

from labeldp_core.errors import LabelDPError
from labeldp_core.validation import check_epsilon
from ui.demo import SNAP_KEY, demo_mode

__all__ = ["EPSILON_GRID", "EPSILON_RANGE", "epsilon_control", "link_epsilon", "shown_epsilon"]

#: Log-spaced positions of the epsilon slider, 0.05 to 20.
EPSILON_GRID: tuple[float, ...] = tuple(
    sorted({float(f"{e:.2g}") for e in np.geomspace(0.05, 20, 40)} | {0.1, 0.5, 1.0, 2.0, 4.0, 8.0})
)
#: What the number box accepts.
EPSILON_RANGE = (0.001, 100.0)
_VALUE = "_epsilon"
_BOX = "epsilon"
_SLIDER = "epsilon_slider"


def link_epsilon(text: str) -> float:
    """The epsilon a link's text asks for; LabelDPError saying why if the control refuses it."""
    try:
        number = float(text)
    except ValueError:
        raise LabelDPError(f"epsilon must be a number, got {text!r}") from None
    value = check_epsilon(number)
    low, high = EPSILON_RANGE
    if not low <= value <= high:
        raise LabelDPError(f"the ε control takes values from {low:g} to {high:g}")
    return value


def _from_link(default: float) -> float:
    """The link's epsilon if usable, else ``default`` (the link's error then says why)."""
    text = st.query_params.get(_BOX)
    try:
        return default if text is None else link_epsilon(text)
    except LabelDPError:
        return default


def shown_epsilon(default: float = 1.0) -> float:
    """The session's epsilon: set by the controls, first taken from the link."""
    if _VALUE not in st.session_state:
        st.session_state[_VALUE] = _from_link(default)
    return float(st.session_state[_VALUE])


def _box_typed() -> None:
    if st.session_state.get(_BOX) is not None:  # an emptied box keeps the value
        st.session_state[_VALUE] = float(st.session_state[_BOX])


def _slider_moved() -> None:
    st.session_state[_VALUE] = float(st.session_state[_SLIDER])


def _nearest(value: float, grid: Sequence[float]) -> float:
    return float(min(grid, key=lambda point: abs(math.log(point) - math.log(value))))


def _snapping(grid: Sequence[float] | None) -> bool:
    """Whether the slider moves between ``grid``'s values only (a checkbox, on in demo mode)."""
    if not grid:
        return False
    if SNAP_KEY not in st.session_state:
        st.session_state[SNAP_KEY] = demo_mode()
    return st.checkbox(
        "Computed ε only", key=SNAP_KEY,
        help="Move between the ε values `make warm` computes for this page, so every position "
        "shows a cached result at once.",
    )  # fmt: skip


def epsilon_control(
    default: float = 1.0, label: str = "Privacy budget ε", grid: Sequence[float] | None = None
) -> float:
    """Draw the epsilon slider and number box at this point of the page; return the value.

    Call it right under the page's title. ``default`` is used when neither the session nor the
    link has an epsilon yet. ``grid``: the epsilons this page's curves are computed on; with
    snapping on (demo mode) the slider moves between them only and the box is not shown.
    """
    epsilon = shown_epsilon(default)
    slider, box = st.columns([4, 1], vertical_alignment="bottom")
    with box:
        snap = _snapping(grid)
    if snap:
        epsilon = st.session_state[_VALUE] = _nearest(epsilon, grid)
    st.session_state[_SLIDER] = epsilon
    st.query_params[_BOX] = f"{epsilon:g}"
    options = sorted(grid) if snap else sorted({*EPSILON_GRID, epsilon})
    slider.select_slider(
        f"{label} (log scale)", options=options, key=_SLIDER, on_change=_slider_moved,
        format_func=lambda value: f"{value:g}",
        help="Smaller ε means more privacy and noisier labels.",
    )  # fmt: skip
    if not snap:
        st.session_state[_BOX] = epsilon
        low, high = EPSILON_RANGE
        box.number_input(
            f"{label}, exact", min_value=low, max_value=high, value=None, step=0.1,
            format="%.3g", key=_BOX, on_change=_box_typed,
        )  # fmt: skip
    return epsilon
