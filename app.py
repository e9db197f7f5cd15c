"""labeldp explorer: the Streamlit entry point (navigation, home page, shared sidebar)."""

import streamlit as st

from ui.controls import shared_controls

st.set_page_config(page_title="labeldp explorer", page_icon="🔒", layout="wide")


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


MECHANISM_PAGES = [
    st.Page("pages/randomized_response.py", title="Randomized response", icon="🎲",
            url_path="randomized-response"),
    st.Page("pages/dpsgd.py", title="DP-SGD baseline", icon="🧮", url_path="dp-sgd"),
]  # fmt: skip

navigation = st.navigation([st.Page(home, title="Home", icon="🏠", default=True), *MECHANISM_PAGES])
shared_controls()
navigation.run()
