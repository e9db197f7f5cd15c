"""Demo mode: larger type, a lean sidebar, ε snapping to the warmed grid, a guided tour.

Turned on by ``?demo=1`` in a link or by the sidebar's toggle, for the session. The tour is the
README's 10-minute demo: one sentence per stop and Back / Next buttons that move between pages.
Every stop draws from the cache after ``make warm``.
"""

from typing import NamedTuple

import streamlit as st

__all__ = ["SNAP_KEY", "TOUR", "demo_mode", "demo_toggle", "tour_panel"]

_ON = "_demo_mode"
_TOGGLE = "demo_toggle"
#: The ε control's "computed values only" checkbox and its name in a link: one setting for the
#: session, on by default in every mode (ui/epsilon.py keeps it across pages).
SNAP_KEY = "snap"


class Stop(NamedTuple):
    """One stop of the tour: the page's file in ``pages/`` (app.py for Home) and what to say."""

    page: str
    sentence: str


#: The README's 10-minute demo, stop by stop.
TOUR: tuple[Stop, ...] = (
    Stop(
        "app.py",
        "Label DP protects the labels, not the inputs: which ad was clicked, which "
        "diagnosis goes with a scan.",
    ),
    Stop(
        "pages/randomized_response.py",
        "Drag ε from 0.1 to 8: below ln(K − 1) most labels are "
        "flipped, yet the model still learns, because the true label stays the likeliest.",
    ),
    Stop(
        "pages/epsilon_meaning.py",
        "ε caps how well anyone can guess one person's label; the "
        "class can try it in Guess the label.",
    ),
    Stop(
        "pages/rr_prior.py",
        "A prior lets randomized response spend its budget on plausible "
        "labels only: same ε, fewer wasted flips.",
    ),
    Stop(
        "pages/pate.py",
        "PATE's teachers vote; noise on the votes is what the student learns "
        "from, and only the answered queries cost privacy.",
    ),
    Stop(
        "pages/dpsgd.py",
        "DP-SGD protects whole examples, image and label: a different, "
        "stronger promise, paid for in accuracy.",
    ),
    Stop(
        "pages/audit.py",
        "An audit runs the release on two neighbours: the measured lower bound "
        "stays under the claim, and a broken control is caught.",
    ),
    Stop(
        "pages/compare.py",
        "Every mechanism at the ε its accounting spent, grouped by what it "
        "protects: the closing slide.",
    ),
)

_LARGER_TYPE = """
<style>
.stApp p, .stApp li, .stApp label, .stApp [data-testid="stMetricValue"] { font-size: 1.25rem; }
.stApp h1 { font-size: 2.25rem; padding: 0; }
/* a projector's 800 px: less empty space above the page, so its chart sits under the ε control */
.stMainBlockContainer { padding-top: 0.5rem; }
.stApp .st-key-tour_panel { padding: 0.5rem 1rem; gap: 0.5rem; }
.stApp [data-testid="stCaptionContainer"] { font-size: 1.1rem; }
/* the menu's longer titles wrap in the larger type instead of being cut at the sidebar's edge */
.stApp [data-testid="stSidebar"] [data-testid="stPageLink-NavLink"] * {
  white-space: normal; overflow: visible;
}
</style>
"""


def _link_asks() -> bool:
    return st.query_params.get("demo", "").lower() in ("1", "true", "on", "yes")


def demo_mode() -> bool:
    """Whether this session is in demo mode (first taken from the link's ``demo``)."""
    if _ON not in st.session_state:
        st.session_state[_ON] = _link_asks()
    return bool(st.session_state[_ON])


def _toggled() -> None:
    st.session_state[_ON] = bool(st.session_state[_TOGGLE])


def demo_toggle() -> bool:
    """Draw the sidebar's demo toggle and return whether demo mode is on.

    In demo mode the type is enlarged and the link keeps ``demo=1``.
    """
    on = demo_mode()
    st.session_state[_TOGGLE] = on
    st.sidebar.toggle(
        "Demo mode",
        key=_TOGGLE,
        on_change=_toggled,
        help="Larger type, only the dataset in the sidebar, no exact ε box (ε moves between "
        "computed values), "
        "and a guided tour of the README's 10-minute demo.",
    )
    if on:
        st.query_params["demo"] = "1"
        st.markdown(_LARGER_TYPE, unsafe_allow_html=True)
    elif "demo" in st.query_params:
        del st.query_params["demo"]
    return on


def tour_panel(page: str) -> None:
    """In demo mode, the tour's stop for ``page`` (a file path) with Back and Next buttons."""
    if not demo_mode():
        return
    files = [stop.page for stop in TOUR]
    index = files.index(page) if page in files else None
    box = st.container(border=True, key="tour_panel")
    if index is None:
        box.caption("Demo tour: this page is off the tour. Next stop: the tour's first page.")
        target = TOUR[0].page
        if box.button("Back to the tour", key="tour_back_in"):
            st.switch_page(target)
        return
    box.markdown(f"**Demo, stop {index + 1} of {len(TOUR)}.** {TOUR[index].sentence}")
    back, forward = box.columns(2)
    if index > 0 and back.button("← Back", key="tour_back", use_container_width=True):
        st.switch_page(TOUR[index - 1].page)
    if index + 1 < len(TOUR) and forward.button(
        "Next →", key="tour_next", type="primary", use_container_width=True
    ):
        st.switch_page(TOUR[index + 1].page)
