"""Shareable links: every control of every page is restored from the URL's query parameters."""

import ast
from dataclasses import replace
from pathlib import Path

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.training import loop

ROOT = Path(__file__).resolve().parents[1]
#: Widgets that mirror another bound control instead of being in the URL themselves.
MIRRORS = {"epsilon_slider"}
#: Query values that keep every page quick: one epoch on the bundled digits.
FAST = {"dataset": "digits", "epochs": "1"}
#: Controls of the shared sidebar: checked on the first page only, they are the same everywhere.
SHARED = {"model", "seed", "epsilon"}


def _pages() -> list[str]:
    """The page files listed in app.py's PAGE_TABLE (read, not imported: app.py runs Streamlit)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PAGE_TABLE":
            return [f"pages/{row.elts[0].value}" for row in node.value.elts]
    raise AssertionError("PAGE_TABLE not found in app.py")


def _widgets(app):
    kinds = (
        "selectbox", "number_input", "select_slider", "slider", "checkbox", "toggle", "radio",
        "multiselect",
    )  # fmt: skip
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
        others = [o for o in options if str(o) != str(current)]
        if not others:
            return None
        choice = others[-1]
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


@pytest.fixture
def instant_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model trains one epoch on 64 examples: this test is about URLs, not accuracy.

    Reopening a page with a changed control recomputes its results; with real training the PATE
    page alone (50 teachers, 200 steps each, for every changed setting) would take minutes.
    """
    original = loop._fit

    def tiny(x_train, targets, outputs, loss_fn, evaluate, settings, seed, progress):
        small = replace(settings, epochs=1)
        return original(
            x_train[:64], targets[:64], outputs, loss_fn, evaluate, small, seed, progress
        )

    monkeypatch.setattr(loop, "_fit", tiny)


@pytest.mark.usefixtures("instant_training")
@pytest.mark.parametrize("page", _pages())
def test_every_control_is_restored_from_a_copied_link(page):
    skip = MIRRORS | set(FAST) | (set() if page == _pages()[0] else SHARED)
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
        if isinstance(got, list | tuple):
            got, value = [str(g) for g in got], [str(v) for v in value]
        assert got == value or str(got) == str(value), (page, key, value, got)
        checked.append(key)
    if page == _pages()[0]:
        assert set(checked) >= SHARED, checked
