"""Shareable links: every control of every page is restored from the URL's query parameters."""

import pytest
from app_helpers import assert_no_errors, open_page, page_files

#: Widgets that mirror another bound control instead of being in the URL themselves: the slider
#: mirrors the epsilon box; the demo toggle is written as demo=1 (tests/app/test_demo_tour.py).
#: The snapping checkbox is in the link as snap (checked below like any control).
MIRRORS = {"epsilon_slider", "demo_toggle"}
#: Query values that keep every page quick: one epoch on the bundled digits.
FAST = {"dataset": "digits", "epochs": "1"}
#: Controls of the shared sidebar: checked on the first page only, they are the same everywhere.
SHARED = {"model", "seed", "epsilon"}


def _widgets(app):
    kinds = (
        "selectbox",
        "number_input",
        "select_slider",
        "slider",
        "checkbox",
        "toggle",
        "radio",
        "multiselect",
    )
    for kind in kinds:
        yield from getattr(app, kind)


def _other_value(widget) -> tuple[object, str] | None:
    """A value different from the current one, and how it is written in a URL."""
    kind = type(widget).__name__
    if kind == "Multiselect":
        options = list(widget.options)
        chosen = [options[0]] if list(widget.value) != [options[0]] else options[:2]
        return chosen, chosen
    if kind in ("Selectbox", "Radio", "SelectSlider"):
        options = list(widget.options)
        current = widget.format_func(widget.value) if kind == "SelectSlider" else widget.value
        names = [str(o) for o in options]
        if all(name == str(current) for name in names):
            return None
        # The option next to the current one (below it; above the first), one step along the
        # control as for a number: the last option (a million audit draws, 250 teachers) cost
        # more CPU than the rest of its page's links together.
        here = names.index(str(current)) if str(current) in names else len(names)
        choice = options[here - 1] if here > 0 else options[here + 1]
        return choice, str(choice)
    if kind in ("Checkbox", "Toggle"):
        return (not widget.value), str(not widget.value).lower()
    if kind in ("NumberInput", "Slider"):
        value = widget.value
        if isinstance(value, tuple):
            return None
        step = widget.step or 1
        upper = widget.max if widget.max is not None else value + 10 * step
        target = value + step if value + step <= upper else value - step
        target = type(value)(target)
        return target, str(target)
    return None


@pytest.mark.usefixtures("instant_training")
@pytest.mark.parametrize("page", page_files())
def test_every_control_is_restored_from_a_copied_link(page):
    skip = MIRRORS | set(FAST) | (set() if page == page_files()[0] else SHARED)
    app = open_page(page, **FAST)
    assert_no_errors(app)
    checked = []
    for widget in list(_widgets(app)):
        key = widget.key
        if not key or key in skip or key.startswith("$$"):
            continue
        other = _other_value(widget)
        if other is None:
            continue
        value, text = other
        reopened = open_page(page, **(FAST | {key: text}))
        assert not reopened.exception, (page, key, [e.value for e in reopened.exception])
        match = [w for w in _widgets(reopened) if w.key == key]
        assert match, (page, key, "widget gone after reopening")
        got = match[0].value
        if type(match[0]).__name__ == "Multiselect":  # its options are shown (and linked) labelled
            got = [match[0].format_func(g) for g in got]
        elif type(match[0]).__name__ == "Selectbox":  # so are a labelled selectbox's
            got = match[0].format_func(got)
        if isinstance(got, list | tuple):
            got, value = [str(g) for g in got], [str(v) for v in value]
        assert got == value or str(got) == str(value), (page, key, value, got)
        checked.append(key)
    if page == page_files()[0]:
        assert set(checked) >= SHARED, checked
