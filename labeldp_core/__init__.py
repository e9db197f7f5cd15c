"""labeldp explorer core: label differential privacy mechanisms, accounting and experiments.

The library never imports Streamlit; the app in ``app.py`` and ``pages/`` sits on top of it.
"""

from labeldp_core.base.threads import one_thread_by_default

__version__ = "0.1.0"

# Before torch is imported anywhere below: one thread per process unless a training takes more.
one_thread_by_default()

__all__ = ["__version__"]
