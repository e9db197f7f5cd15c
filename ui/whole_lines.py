"""No text cut at its box's edge: value boxes, page links, labels and long words wrap instead.

Streamlit draws a value box's (``st.metric``) label, value and delta, a page link's label and a
control's label on one line cut with "…" at the box's edge: on a phone, and in demo mode's
larger type, a label such as "Guess of one label, uniform prior (π = 1/10, image unseen)" or a
delta that is a sentence lost its end, and in a column a checkbox's "Show the image (RR wit…"
did. A word longer than its line (a formula, an address) ran past the window instead.
"""

import streamlit as st

__all__ = ["whole_lines"]

_STYLE = """<style>
.stApp [data-testid="stMetricLabel"], .stApp [data-testid="stMetricLabel"] *,
.stApp [data-testid="stMetricValue"], .stApp [data-testid="stMetricValue"] *,
.stApp [data-testid="stMetricDelta"], .stApp [data-testid="stMetricDelta"] *,
.stApp [data-testid="stPageLink-NavLink"] *,
.stApp [data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"],
.stApp [data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"] *,
.stApp [data-testid="stCheckbox"] [data-testid="stMarkdownContainer"],
.stApp [data-testid="stCheckbox"] [data-testid="stMarkdownContainer"] * {
  white-space: normal; overflow: visible; text-overflow: clip;
}
.stApp [data-testid="stMetricDelta"] { height: auto; }
.stApp :is(h1, h2, h3, p, li) { overflow-wrap: break-word; }
</style>"""


def whole_lines() -> None:
    """Apply the rules to the page (a style only: Streamlit gives it no room on the page)."""
    st.html(_STYLE)
