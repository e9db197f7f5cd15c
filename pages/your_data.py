"""Your data: upload a table, pick the label to protect, then every page trains on it."""

import streamlit as st

from ui.controls import current_controls
from ui.results import READ_ONLY_NOTE, read_only, reported_errors
from ui.tables import chosen_file, forget_panel, preview_and_add


def render() -> None:
    """Draw the page: what a table brings, then the upload, its preview and the stored tables."""
    current_controls()
    st.title("Your data")
    st.markdown(
        "Bring a table (CSV or Parquet) and pick the column whose values are private: the "
        "*label*. Every mechanism then protects each row's label and nothing else: the other "
        "columns are features the model reads (standardised or one-hot encoded), and which rows "
        "have a label, and the classes or range you give, are taken as known. A table has no "
        "images, so the pages train the MLP or the logistic model on it."
    )
    with reported_errors():
        if read_only():
            st.caption(READ_ONLY_NOTE)
        else:
            found = chosen_file()
            if found is not None:
                preview_and_add(*found)
        forget_panel(buttons=not read_only())


render()
