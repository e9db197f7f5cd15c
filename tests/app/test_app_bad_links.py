"""Bad values in a link, on every page of the app's navigation (``ui.navigation.page_table``): an
error with the fix, never an exception, and the rest of the page drawn with every value of the link
that was valid.

Streamlit itself refuses a URL value a widget cannot take (out of range, NaN, not an option) and
falls back to the widget's default; ``ui.links`` makes that visible as one ``st.error`` per value,
naming it, saying why (with the core's own message where there is one) and what is shown instead.
The pages share one cache (module scope), so each result is computed once for all the links.
"""

import re
from pathlib import Path

import pytest
from app_helpers import open_page

from labeldp_core.registry import pages
from ui.navigation import page_table

#: Refused by every page: a negative epsilon, a negative seed, an unknown dataset.
SHARED_BAD = {"epsilon": "-1", "seed": "-5", "dataset": "cifar"}
#: Valid values the page must keep: the model, one epoch (and, for PATE, a small ensemble).
KEPT = {"model": "mlp", "epochs": "1"}
#: Per page no family owns: bad values for its own controls, and valid ones it must keep (a
#: family's page declares its own in its ``Page``).
OTHER_LINKS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "laplace_noise.py": ({"sensitivity": "-3"}, {}),
    "compare.py": ({"mechanisms": "magic"}, {}),
    "choose_epsilon.py": ({"target": "magic", "unit": "teacher"}, {}),
    "epsilon_meaning.py": ({}, {}),
    "audit.py": ({"mechanism": "magic"}, {}),
    "papers.py": ({}, {}),
    "your_data.py": ({}, {}),
    "play.py": ({}, {}),
    "price_of_privacy.py": ({"mechanisms": "magic"}, {}),
}
#: Per page: bad values for its own controls, and valid ones it must keep.
PAGE_LINKS = {
    Path(page.file).name: (dict(page.bad_links), dict(page.kept_links)) for _, page in pages()
} | OTHER_LINKS
#: Pages without an epsilon control (the papers' table spans every epsilon; "Your data" adds
#: tables; the price of privacy plays every cached ε): a link's epsilon is not theirs to refuse.
NO_EPSILON = {"papers.py", "your_data.py", "choose_epsilon.py", "play.py", "price_of_privacy.py"}
REASONS = {
    "epsilon": "epsilon must be greater than 0",
    "seed": "seed must be a whole number",
    "dataset": "unknown dataset `cifar`; choose one of: digits",
}


#: (page file name, title) of every page of the navigation.
PAGES = [(Path(entry.file).name, entry.title) for entry in page_table()]


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("links-cache")


@pytest.fixture(autouse=True)
def use_shared_cache(isolated_cache, shared_cache, monkeypatch):
    monkeypatch.setenv("LABELDP_CACHE_DIR", str(shared_cache))


def _errors(app) -> list[str]:
    """The error boxes' texts as a reader sees them (markdown escapes removed)."""
    return [re.sub(r"\\(.)", r"\1", element.value) for element in app.error]


def test_every_page_of_the_table_has_a_link_here():
    assert {file for file, _ in PAGES} == set(PAGE_LINKS)


@pytest.mark.usefixtures("instant_training")  # the page's text and controls, not what it learnt
@pytest.mark.parametrize(("file", "title"), PAGES, ids=[p[0] for p in PAGES])
def test_bad_link_values_are_reported_and_the_rest_of_the_page_is_kept(file, title):
    bad, kept = PAGE_LINKS[file]
    shared = {k: v for k, v in SHARED_BAD.items() if not (k == "epsilon" and file in NO_EPSILON)}
    app = open_page(f"pages/{file}", **shared, **KEPT, **bad, **kept)
    assert not app.exception, [e.value for e in app.exception]
    assert [t.value for t in app.title] == [title]
    refused = set(shared) | set(bad)
    errors = _errors(app)
    assert len(errors) == len(refused), errors
    for key in refused:
        (message,) = [e for e in errors if e.startswith(f"The link sets {key}=")]
        assert REASONS.get(key, "cannot be used") in message
        assert "instead; choose another value with the control" in message
    sidebar = app.sidebar
    if file not in NO_EPSILON:
        assert app.number_input(key="epsilon").value == 1.0
    assert sidebar.number_input(key="seed").value == 0
    assert sidebar.selectbox(key="dataset").value == "digits"
    assert sidebar.selectbox(key="model").value == "mlp"
    if "teachers" in kept:
        assert sidebar.select_slider(key="teachers").value == int(kept["teachers"])


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("nan", "epsilon must be a finite number"),
        ("inf", "epsilon must be a finite number"),
        ("-inf", "epsilon must be a finite number"),
        ("0", "epsilon must be greater than 0"),
        ("1e9", "is too large to mean anything"),
        ("abc", "epsilon must be a number, got `abc`"),
        ("0.0001", "the ε control takes values from 0.001 to 100"),
    ],
)
def test_bad_epsilons_in_a_link_name_the_problem(value, reason):
    app = open_page("pages/laplace_noise.py", epsilon=value)
    assert not app.exception
    (message,) = _errors(app)
    assert message.startswith(f"The link sets epsilon=`{value}`,") and reason in message
    assert app.number_input(key="epsilon").value == 1.0
    assert app.title[0].value == "Laplace noise"


def test_valid_link_values_raise_no_error():
    app = open_page(
        "pages/laplace_noise.py", epsilon="2", seed="3", sensitivity="9", compare=["0.5", "4.0"]
    )
    assert not app.exception and not app.error
    assert app.number_input(key="sensitivity").value == 9.0
    assert app.multiselect(key="compare").value == [0.5, 4.0]


def test_an_out_of_range_widget_value_never_reaches_the_core():
    # The browser keeps a number input within its range; Streamlit drops a forged value outside
    # it before the page sees it, and epsilon stays what it was.
    app = open_page("pages/laplace_noise.py", epsilon="2")
    app.number_input(key="epsilon").set_value(-1.0).run()
    assert not app.exception and not app.error
    assert app.number_input(key="epsilon").value == 2.0
    assert app.select_slider(key="epsilon_slider").value == 2.0


def test_refused_values_stay_reported_until_their_control_is_moved():
    app = open_page("pages/laplace_noise.py", epsilon="-1", seed="-5")
    app.number_input(key="epsilon").set_value(2.0).run()
    assert not app.exception
    assert [e.split(",")[0] for e in _errors(app)] == ["The link sets seed=`-5`"]
    # The page runs without app.py here (as on a fresh server): the shared sidebar stays.
    assert app.sidebar.selectbox(key="dataset").value == "digits"
    app.sidebar.number_input(key="seed").set_value(4).run()
    assert not app.exception and not app.error


def test_every_seed_the_core_accepts_is_accepted_by_the_control():
    # The core takes seeds in 0..2^32-1; the control used to stop at 2^31-1 and refuse the rest.
    app = open_page("pages/laplace_noise.py", seed=str(2**32 - 1))
    assert not app.exception and not app.error
    assert app.sidebar.number_input(key="seed").value == 2**32 - 1


def test_a_link_value_a_choice_control_lacks_is_answered_with_the_values_it_takes():
    # (On the noise page: the PATE page's teachers=7 said the same, then trained 50 teachers.)
    app = open_page("pages/laplace_noise.py", compare="7")
    assert not app.exception
    (message,) = _errors(app)
    assert message.startswith(
        "The link sets compare=`7`, which cannot be used: compare can be "
        "one of 0.1, 0.25, 0.5, 1, 2, 4, 8."
    )


@pytest.mark.parametrize(
    "value",
    [
        "[click here](http://evil.example)",
        "![x](http://t.example/p.png)",
        "<b>hi</b>",
        "www.evil.example/" + "x" * 60,
    ],
)
def test_a_link_value_is_quoted_back_as_inert_text(value):
    # A link is anybody's text: inside the app's own red box it must not become a link, an
    # image or HTML. It is quoted as a code span (truncated), also where the reason repeats
    # it, and the rest of the reason is escaped.
    app = open_page("pages/laplace_noise.py", dataset=value)
    (raw,) = [e.value for e in app.error]
    quoted = "`" + value[:40] + ("…" if len(value) > 40 else "") + "`"
    assert raw.startswith(f"The link sets dataset={quoted},")
    rest = raw.removeprefix(f"The link sets dataset={quoted},").replace(quoted, "")
    assert not re.search(r"(?<!\\)[\[\]()<>!]", rest.split("Showing")[0]), rest
    assert "http://" not in rest and "www." not in rest


#: Link values GitHub-flavoured Markdown would show as a link, an image or HTML.
ACTIVE_VALUES = [
    "http://evil.example/x",
    "https://evil.example",
    "www.evil.example",
    "mailto:someone@evil.example",
    "someone@evil.example",
    "[click](http://evil.example)",
    "![pic](http://evil.example/p.png)",
    "<a href='http://evil.example'>x</a>",
    "`a`\n\n[click](http://evil.example)",
]
#: What starts a GitHub autolink in text, once Markdown's escapes are undone.
AUTOLINK = re.compile(r"(?i)https?:|www\.|[-.\w+]@")


@pytest.mark.parametrize("key", ["dataset", "epsilon"])
@pytest.mark.parametrize("value", ACTIVE_VALUES)
def test_a_link_value_is_echoed_only_inside_a_code_span(key, value):
    # Escaping ':' did not stop GitHub's autolinks (the red box linked http://, www. and e-mail
    # addresses): the value is shown only in a code span, and the text around it, which may
    # repeat it, keeps no autolink trigger, no unescaped markdown and no line break.
    app = open_page("pages/laplace_noise.py", **{key: value})
    assert not app.exception
    (raw,) = [e.value for e in app.error]
    spans = re.findall(r"`([^`]*)`", raw)
    assert spans and all("\n" not in span for span in spans), raw
    text = re.sub(r"`[^`]*`", "", raw).replace("\\", "")
    assert not AUTOLINK.search(text.replace("\\", "")), raw
    assert not re.search(r"(?<!\\)[\[\]()<>!]", re.sub(r"`[^`]*`", "", raw)), raw
    assert "\n" not in raw
