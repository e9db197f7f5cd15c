"""Streamlit helpers shared by the pages: sidebar controls and cached access to the core."""
