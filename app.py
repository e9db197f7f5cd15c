"""labeldp explorer: the Streamlit entry point (navigation, home page, shared sidebar)."""

import os
from pathlib import Path

import streamlit as st

from ui.controls import current_controls, end_of_run, shared_controls
from ui.navigation import page_table, unknown_address
from ui.results import compute_service
from ui.threat import threat_cards
from ui.warm_panel import warm_panel, warm_sidebar_line

#: The tab's icon, served by the app itself (a Material icon here is a link to a font service).
ICON = Path(__file__).parent / "ui" / "assets" / "icon.png"
# Offline unless asked: a link naming a dataset that is not on the machine must not make the
# server download it (set LABELDP_OFFLINE=0 to allow downloads, each with a timeout).
os.environ.setdefault("LABELDP_OFFLINE", "1")
st.set_page_config(page_title="labeldp explorer", page_icon=str(ICON), layout="wide")
compute_service()  # the workers start with the first visit, not with the first computation


def home() -> None:
    """What label differential privacy is, when it is the right notion, and where to go next."""
    st.title("labeldp explorer")
    _unknown_address_note()
    st.markdown(
        """
**Label differential privacy** protects the *labels* of a training set, not the inputs. A
training algorithm is ε-label-DP when changing the label of any one example changes the
probability of every possible output by at most a factor e^ε: whoever sees the model (or the
released labels) learns little about any single label.

It is the right notion when the inputs are public or already known to the other side and only the
labels are sensitive: which ads a user clicked, a diagnosis attached to a scan, a survey answer.
When the inputs themselves are private, use example-level DP (DP-SGD), which protects image and
label together at a higher cost in accuracy.

Pick a dataset, a seed and a model in the sidebar; every page reuses them, and every number comes
from a cache, so a result computed once comes back at once. Copy the address bar to share a view.
"""
    )
    for section, section_pages in SECTIONS.items():
        st.subheader(section)
        for page in section_pages:
            st.page_link(page)
    warm_panel(current_controls().dataset)


def _unknown_address_note() -> None:
    """Say once per visit that the address asked for is no page (Streamlit opened Home instead)."""
    known = {"", *(page.url_path for section in SECTIONS.values() for page in section)}
    asked = unknown_address(st.context.url, st.get_option("server.baseUrlPath"), known)
    if asked is None or st.session_state.get("unknown_address_said") == asked:
        return
    st.session_state["unknown_address_said"] = asked
    st.warning(
        f"There is no page at `/{asked.replace('`', '')}`: this is Home. Every page is in the "
        "menu on the left.",
        icon=":material/link_off:",
    )


#: Every page after the home page, by section: the families' pages come from the registry.
SECTIONS: dict[str, list[st.Page]] = {}
for entry in page_table():
    SECTIONS.setdefault(entry.section, []).append(
        st.Page(entry.file, title=entry.title, icon=f":material/{entry.icon}:")
    )

HOME_PAGE = st.Page(home, title="Home", icon=":material/home:", default=True)
navigation = st.navigation({"": [HOME_PAGE], **SECTIONS})
# The app draws its own navigation (Streamlit's is off in .streamlit/config.toml): a link opened
# first on a fresh server runs the page file alone once, under Streamlit's navigation of raw file
# names, before app.py has run; with that one off, nothing flashes there.
with st.sidebar.container(key="app_navigation"):
    st.page_link(HOME_PAGE)
    for section, section_pages in SECTIONS.items():
        st.caption(section)
        for page in section_pages:
            st.page_link(page)
controls = shared_controls(navigation.url_path)
warm_sidebar_line(controls.dataset)
try:
    navigation.run()
    threat_cards(navigation.url_path, controls.dataset)
finally:
    end_of_run()
