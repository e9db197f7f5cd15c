"""Link values a control refused: reported with the reason and the fix, never dropped in silence.

A widget bound to the URL (``bind="query-params"``) takes its first value from the link. Streamlit
drops a value the widget cannot take (out of range, not a number, not one of its options) and
shows the widget's default without a word, so a link with a typo would show another view than
its sender meant. :func:`note_link` remembers the link's values before the widgets read them;
:func:`report_refused` then compares each with what its widget shows and puts an ``st.error``
at the top of the page for every value that was not taken, until the control is moved. The rest
of the page is drawn as usual, with every value of the link that was valid.
"""

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from labeldp_core.base.validation import check_seed
from labeldp_core.data import dataset_info
from labeldp_core.engine.spec import COMMON_SETTINGS
from labeldp_core.errors import LabelDPError
from ui.epsilon import link_epsilon
from ui.widget_state import without_default

__all__ = ["linked", "note_link", "offered", "report_refused"]

T = TypeVar("T")
_PENDING = "_link_pending"
_REFUSED = "_link_refused"
_SLOT = "_link_slot"
_SHOWN = "_link_shown"
_OFFERED = "_link_offered"
_LABELS = "_link_labels"


def _whole(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise LabelDPError(f"{name} must be a whole number, got {text!r}") from None


#: Why the core refuses a link value of a shared control (raises LabelDPError with the fix).
_REASONS: dict[str, Callable[[str], object]] = {
    "epsilon": link_epsilon,
    "seed": lambda text: check_seed(_whole(text, "seed")),
    "dataset": dataset_info,
    "model": lambda text: COMMON_SETTINGS["model"].parse("model", text),
}


def offered(
    key: str,
    options: Sequence[T],
    labels: Callable[[T], str] | None = None,
    *,
    several: bool = True,
) -> Sequence[T]:
    """Remember the options of the control keyed ``key``; return them unchanged.

    Wrap the options of every choice control bound to the URL, so that a link value it refuses
    is reported with the values it takes. With ``labels`` (the control's ``format_func``: the
    URL then holds each option's label) a link may name an option by its value or its label:
    the values are put in the control's state before it is drawn, so older links keep working:
    a list for a control that takes ``several`` (a multiselect), else the one value.
    """
    st.session_state.setdefault(_OFFERED, {})[key] = [
        labels(option) if labels else option for option in options
    ]
    if labels is not None:
        by_label = {labels(option): option for option in options}
        st.session_state.setdefault(_LABELS, {})[key] = {str(o): labels(o) for o in options}
        given = st.session_state.get(_PENDING, {}).get(key) or []
        if (
            key not in st.session_state
            and given
            and all(g in by_label or g in map(str, options) for g in given)
        ):
            as_value = {str(option): option for option in options}
            chosen = [by_label.get(g, as_value.get(g)) for g in given]
            st.session_state[key] = chosen if several else chosen[0]
    return options


def linked(
    widget: Callable[..., Any],
    label: str,
    key: str,
    options: Sequence[T],
    *,
    labels: Callable[[T], str] | None = None,
    **kwargs: Any,
) -> Any:
    """A choice control bound to the link under ``key``, its options :func:`offered`.

    ``widget`` is the Streamlit call (``st.selectbox``, ``sidebar.select_slider``,
    ``st.multiselect``...): the key is typed once, not once for the link and again for the
    widget. ``labels`` is the control's ``format_func``; other keyword arguments go to the widget,
    but its default not when the link's value was just put in the session (Streamlit would
    ignore it with a warning: :func:`ui.widget_state.without_default`).
    """
    if labels is not None:
        kwargs["format_func"] = labels
    several = getattr(widget, "__name__", "") == "multiselect"
    drawn_before = key in st.session_state
    choices = offered(key, options, labels, several=several)
    if not drawn_before:
        kwargs = without_default(key, kwargs)
    return widget(label, choices, key=key, bind="query-params", **kwargs)


def note_link() -> None:
    """Remember the link's values that no widget has read yet; keep a place for the errors.

    Call before any widget is drawn, at the top of the main area.
    """
    params = st.query_params
    st.session_state[_PENDING] = {
        key: params.get_all(key) for key in params if key not in st.session_state
    }
    st.session_state[_SLOT] = st.container()
    st.session_state[_SHOWN] = set()


def report_refused() -> None:
    """Show an error for every remembered link value whose widget now shows something else.

    Call after widgets are drawn (as often as wanted: each error is shown once per run). An error
    stays on every page until its control is moved away from the value shown instead.
    """
    pending = st.session_state.get(_PENDING, {})
    refused = st.session_state.setdefault(_REFUSED, {})
    for key in [key for key in pending if key in st.session_state]:
        text, shown = pending.pop(key), st.session_state[key]
        if not _same(text, _labelled(key, shown)) and not _same(text, shown):
            refused[key] = (_message(key, text, shown), shown)
    slot, shown_now = st.session_state.get(_SLOT), st.session_state.get(_SHOWN, set())
    for key, (message, shown) in list(refused.items()):
        if slot is None or key not in st.session_state or key in shown_now:
            continue
        if st.session_state[key] != shown:
            del refused[key]  # the control was moved: the link's value no longer matters
            continue
        slot.error(message, icon=":material/link_off:")
        shown_now.add(key)


def _message(key: str, text: list[str], shown: object) -> str:
    given = ",".join(text)
    reason = "this control does not offer it"
    choices = st.session_state.get(_OFFERED, {}).get(key)
    if choices:
        reason = f"{key} can be one of {', '.join(_display(c) for c in choices)}"
    if key in _REASONS:
        try:
            _REASONS[key](given)
        except LabelDPError as exc:
            reason = str(exc)
    return (
        f"The link sets {key}={_quoted(given)}, which cannot be used: {_echoed(reason, given)}. "
        f"Showing {key}={_display(shown)} instead; choose another value with the control to fix "
        "the link."
    )


#: Longest part of a link value quoted back; a link is anybody's text.
QUOTED_MAX = 40
#: Markdown that could turn text into a link, an image, HTML or emphasis.
_ACTIVE = re.compile(r"([\\`*_\[\]()!<>:#|~])")
#: Where GitHub's autolinks start: http(s)://, www. and the @ of an e-mail address (mailto: too).
#: They are found in the text *after* escapes are undone, so escaping cannot stop them; a
#: zero-width space inside each trigger does, and shows nothing.
_AUTOLINK = re.compile(r"(?i)(?<=http)(?=s?:)|(?<=ww)(?=w\.)|(?=@)")
_ZERO_WIDTH = "\u200b"


def _quoted(given: str) -> str:
    """A link value as inert text: a code span (nothing inside is markdown), truncated.

    A backtick would close the span and a line break could end its paragraph, letting the rest
    be read as markdown: both become harmless characters.
    """
    if not given:
        return "(nothing)"
    shown = given if len(given) <= QUOTED_MAX else given[:QUOTED_MAX] + "…"
    return "`" + re.sub(r"\s", " ", shown.replace("`", "'")) + "`"


def _echoed(reason: str, given: str) -> str:
    """The core's ``reason``, its quotes of the link value ``given`` shown as :func:`_quoted`.

    The core quotes a value it refuses (``repr`` or in quotes); the rest of the reason is its
    own text, made inert too (:func:`_inert`), since it may hold the value in another form.
    """
    forms = sorted({repr(given), f"'{given}'", f'"{given}"'}, key=len, reverse=True)
    parts = re.split("(" + "|".join(map(re.escape, forms)) + ")", reason)
    # re.split with one group alternates text (even places) and the value found (odd places).
    return "".join(_quoted(given) if odd % 2 else _inert(part) for odd, part in enumerate(parts))


def _inert(text: str) -> str:
    """``text`` (which may repeat a link value) with no markdown, HTML or autolink left in it."""
    return _AUTOLINK.sub(_ZERO_WIDTH, _ACTIVE.sub(r"\\\1", re.sub(r"\s", " ", text)))


def _display(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value)) or "(none)"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _labelled(key: str, value: object) -> object:
    """``value`` as its control's labels name it (itself if the control has none)."""
    labels = st.session_state.get(_LABELS, {}).get(key)
    if not labels:
        return value
    if isinstance(value, list | tuple):
        return [labels.get(str(v), v) for v in value]
    return labels.get(str(value), value)


def _same(text: list[str], value: object) -> bool:
    """Whether the link's text spells the value the widget shows."""
    values = list(value) if isinstance(value, list | tuple) else [value]
    return len(text) == len(values) and all(map(_same_scalar, text, values))


def _same_scalar(text: str, value: object) -> bool:
    if isinstance(value, bool):
        return text.strip().lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            return math.isclose(float(text), float(value), rel_tol=1e-9)
        except ValueError:
            return False
    return text == str(value)
