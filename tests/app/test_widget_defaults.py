"""No control is drawn with a default while its value comes from the session (issue 53).

Streamlit logs 'The widget with key ... was created with a default value but also had its
value set via the Session State API' (in the server's log; in a developer's browser a
warning box) when a control that names a default, a selectbox's ``index`` other than its
first option or a multiselect's ``default``, finds its value already put in the session:
by a link (:func:`ui.links.offered`) or by a callback that resets it. The value shown must be
the session's, and no such warning logged.
"""

import logging

import pytest
import streamlit.elements.lib.policies as policies
from app_helpers import assert_no_errors, open_page


class _Warnings(logging.Handler):
    """The warnings Streamlit's widget policies log."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def policy_warnings(monkeypatch):
    """The policy warnings logged during the test (Streamlit logs this one once per process)."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    handler = _Warnings()
    logger = logging.getLogger(policies.__name__)
    logger.addHandler(handler)
    yield handler.messages
    logger.removeHandler(handler)


@pytest.mark.parametrize(
    ("page", "key", "given", "shown"),
    [
        ("pages/audit.py", "mechanism", "rr-prior", "rr-prior"),  # default: Laplace, not first
        ("pages/audit.py", "mechanism", "RR with prior", "rr-prior"),  # by its label
        ("pages/compare.py", "mechanisms", "rr", ["rr"]),  # a multiselect with defaults
    ],
)
def test_a_link_sets_a_control_with_a_default_without_a_session_state_warning(
    policy_warnings, page, key, given, shown
):
    query = {key: given, "trials": "20000"} if page == "pages/audit.py" else {key: given}
    app = open_page(page, **query)
    assert_no_errors(app)
    widget = app.selectbox(key=key) if key == "mechanism" else app.multiselect(key=key)
    assert widget.value == shown
    assert not [m for m in policy_warnings if "Session State API" in m], policy_warnings


def test_choose_epsilons_value_box_resets_with_the_target_without_a_session_state_warning(
    policy_warnings,
):
    app = open_page("pages/choose_epsilon.py")
    app.selectbox(key="target").set_value("mse").run()
    assert_no_errors(app)
    assert app.number_input(key="value").value == 2.0
    assert not [m for m in policy_warnings if "Session State API" in m], policy_warnings
