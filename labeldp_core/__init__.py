"""labeldp explorer core: label differential privacy mechanisms, accounting and experiments.

The library never imports Streamlit; the app in ``app.py`` and ``pages/`` sits on top of it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
