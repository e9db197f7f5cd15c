"""labeldp explorer: the Streamlit entry point (navigation, home page, shared sidebar)."""

import os
from pathlib import Path

import streamlit as st

from ui.controls import current_controls, end_of_run, shared_controls
from ui.results import compute_service
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
    st.subheader("Pages")
    for page in MECHANISM_PAGES:
        st.page_link(page)
    warm_panel(current_controls().dataset)


#: (file in pages/, title, Material icon) of every page after the home page. Each page's URL path
#: is its file name without ".py": the name Streamlit announces for the files in pages/ before
#: app.py has run, so a direct link to a freshly started server never flashes "Page not found".
PAGE_TABLE = [
    ("randomized_response.py", "Randomized response", "casino"),
    ("rr_prior.py", "RR with prior", "target"),
    ("laplace_noise.py", "Laplace noise", "show_chart"),
    ("laplace_labels.py", "Laplace on labels", "label"),
    ("noisy_outputs.py", "Noisy model outputs (local DP)", "output"),
    ("pate.py", "PATE", "school"),
    ("dpsgd.py", "DP-SGD baseline", "calculate"),
    ("dppl.py", "DP prototypes", "hub"),
    ("compare.py", "Compare mechanisms", "compare_arrows"),
    ("epsilon_meaning.py", "What ε means", "psychology"),
    ("audit.py", "Privacy audit", "fact_check"),
    ("papers.py", "Papers vs this explorer", "menu_book"),
    ("your_data.py", "Your data", "upload_file"),
]
MECHANISM_PAGES = [
    st.Page(f"pages/{file}", title=title, icon=f":material/{icon}:")
    for file, title, icon in PAGE_TABLE
]

HOME_PAGE = st.Page(home, title="Home", icon=":material/home:", default=True)
navigation = st.navigation([HOME_PAGE, *MECHANISM_PAGES])
# The app draws its own navigation (Streamlit's is off in .streamlit/config.toml): a link opened
# first on a fresh server runs the page file alone once, under Streamlit's navigation of raw file
# names, before app.py has run; with that one off, nothing flashes there.
with st.sidebar.container(key="app_navigation"):
    for page in (HOME_PAGE, *MECHANISM_PAGES):
        st.page_link(page)
controls = shared_controls(navigation.url_path)
warm_sidebar_line(controls.dataset)
try:
    navigation.run()
finally:
    end_of_run()
