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
from streamlit.runtime.scriptrunner import get_script_run_ctx

from labeldp_core.base.validation import check_epsilon
from labeldp_core.errors import LabelDPError
from ui.demo import SNAP_KEY, demo_mode
from ui.risk import RiskOf, risk_help, risk_line

__all__ = [
    "EPSILON_GRID",
    "EPSILON_RANGE",
    "answer_area",
    "epsilon_control",
    "link_epsilon",
    "shown_epsilon",
]

#: Log-spaced positions of the epsilon slider, 0.05 to 20.
EPSILON_GRID: tuple[float, ...] = tuple(
    sorted({float(f"{e:.2g}") for e in np.geomspace(0.05, 20, 40)} | {0.1, 0.5, 1.0, 2.0, 4.0, 8.0})
)
#: What the number box accepts.
EPSILON_RANGE = (0.001, 100.0)
_VALUE = "_epsilon"
_BOX = "epsilon"
_SLIDER = "epsilon_slider"
#: Whether the value was typed (in the box or a link) and stays exact, or was dragged.
_EXACT = "_epsilon_exact"
#: The session's snapping choice (the checkbox ``SNAP_KEY`` shows it).
_SNAP = "_epsilon_snap"
_AREA = "_epsilon_answer_area"


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
        st.session_state[_EXACT] = True


def _slider_moved() -> None:
    st.session_state[_VALUE] = float(st.session_state[_SLIDER])
    st.session_state[_EXACT] = False


def _nearest(value: float, grid: Sequence[float]) -> float:
    return float(min(grid, key=lambda point: abs(math.log(point) - math.log(value))))


def _link_snap() -> bool:
    """The link's ``snap`` (true or false; anything else: on, and the link's error says why)."""
    return st.query_params.get(SNAP_KEY, "true").strip().lower() != "false"


def _snap_moved() -> None:
    st.session_state[_SNAP] = bool(st.session_state[SNAP_KEY])


def _snapping(box, grid: Sequence[float] | None) -> bool:
    """Whether the slider stops at computed values only; the checkbox where there is a grid.

    One setting for the session, on unless turned off, kept across pages (not a widget's state,
    which a page switch forgets) and in the link as ``snap``.
    """
    if _SNAP not in st.session_state:
        st.session_state[_SNAP] = _link_snap()
    on = bool(st.session_state[_SNAP])
    st.query_params[SNAP_KEY] = str(on).lower()
    if not grid:
        return False
    st.session_state[SNAP_KEY] = on
    return box.checkbox(
        "Computed ε only",
        key=SNAP_KEY,
        on_change=_snap_moved,
        help="Stop the slider only at the ε values computed for this page, so every position "
        "shows a cached result at once. The exact box still takes any value.",
    )


def answer_area():
    """The place right under the ε control where a page says what its ε needs.

    An estimate and a compute button go there, in view next to the control; without a control
    on the page, they go where the page is.
    """
    area, run = st.session_state.get(_AREA, (None, None))
    return area if area is not None and run is _this_run() else st


def _this_run() -> object:
    """An object that lasts one run of the page: its cursors (a new dict on every run)."""
    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.cursors


def epsilon_control(
    default: float = 1.0,
    label: str = "Privacy budget ε",
    grid: Sequence[float] | None = None,
    risk: RiskOf | None = None,
) -> float:
    """Draw the epsilon slider and number box at this point of the page; return the value.

    Call it right under the page's title. ``default`` is used when neither the session nor the
    link has an epsilon yet. ``grid``: the epsilons computed for this page (see
    :func:`ui.results.computed_stops`); with snapping on (the default) the slider stops at
    those only, and a value dragged on another page moves to the nearest one. A value typed in
    the box (or a link's) stays exact, with the page's estimate and compute button right under
    the control; in demo mode, whose box is hidden, every value moves to a stop. ``risk``:
    what the page's ε protects; its risk for one label is then written in one line above the
    slider (in the row's free space beside the box), the formulas in its help. Not in demo mode,
    whose larger type would wrap it and push the headline chart below a projector's 800 px.
    """
    epsilon = shown_epsilon(default)
    st.session_state.setdefault(_EXACT, _BOX in st.query_params)  # a link's value is typed
    # demo mode: larger type, so a wider column keeps "Computed ε only" whole at 1280 px
    slider, box = st.columns([3, 1] if demo_mode() else [4, 1], vertical_alignment="bottom")
    with box:
        snap = _snapping(st, grid)
    stops = sorted(grid) if snap else []
    hide_box = snap and demo_mode()
    exact = st.session_state[_EXACT] and not hide_box
    if snap and not exact:
        epsilon = st.session_state[_VALUE] = _nearest(epsilon, stops)
    st.session_state[_SLIDER] = epsilon
    st.query_params[_BOX] = f"{epsilon:g}"
    options = sorted({*stops, epsilon}) if snap else sorted({*EPSILON_GRID, epsilon})
    if risk is not None and not demo_mode():  # demo mode's larger type has no line to spare
        slider.caption(risk_line(epsilon, risk), help=risk_help(epsilon, risk))
    slider.select_slider(
        f"{label} (log scale)",
        options=options,
        key=_SLIDER,
        on_change=_slider_moved,
        format_func=lambda value: f"{value:g}",
        help="Smaller ε means more privacy and noisier labels.",
    )
    if not hide_box:
        st.session_state[_BOX] = epsilon
        low, high = EPSILON_RANGE
        box.number_input(
            f"{label}, exact",
            min_value=low,
            max_value=high,
            value=None,
            step=0.1,
            format="%.3g",
            key=_BOX,
            on_change=_box_typed,
        )
    st.session_state[_AREA] = (st.container(), _this_run())
    return epsilon
