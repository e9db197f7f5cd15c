"""A control's default only while the session holds no value for it.

Streamlit shows a control's value from the session when its key holds one, and ignores the
default the call names: it then logs 'The widget with key ... was created with a default value
but also had its value set via the Session State API' (a warning box in a developer's browser).
A value put in the session before the control is drawn (a link's, :func:`ui.links.offered`; a
callback's reset) must therefore be drawn by a call that names no default.
"""

from typing import Any

import streamlit as st

__all__ = ["without_default"]

#: The keywords by which Streamlit's controls name their default.
DEFAULT_KEYWORDS = ("index", "default", "value")


def without_default(key: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` of the control keyed ``key``, its default left out if the session holds a value.

    >>> without_default("not in this session", {"index": 2, "help": "h"})
    {'index': 2, 'help': 'h'}
    """
    if key not in st.session_state:
        return kwargs
    return {name: value for name, value in kwargs.items() if name not in DEFAULT_KEYWORDS}
