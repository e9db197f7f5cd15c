from app_helpers import assert_no_errors, open_page

PAGE = "pages/audit.py"


def _metrics(app):
    return [(m.label, m.value) for m in app.metric]


def test_audit_page_shows_mechanism_and_control_and_follows_epsilon():
    app = open_page(PAGE, mechanism="rr-bins", trials="20000", seed="1")
    assert_no_errors(app)
    assert app.selectbox(key="mechanism").value == "rr-bins"  # restored from the link
    verdicts = " ".join(m.value for m in app.markdown)
    assert (
        "**RR-on-bins (regression)**" in verdicts and "consistent with its claim" in verdicts
    )  # its title
    assert len(app.get("plotly_chart")) == 1
    claims = [value for label, value in _metrics(app) if label.startswith("Claimed")]
    assert claims == ["1"]  # rr-bins has no control
    before = [value for label, value in _metrics(app) if label.startswith("Lower bound")]

    app.number_input(key="epsilon").set_value(2.0).run()
    assert_no_errors(app)
    assert [v for label, v in _metrics(app) if label.startswith("Claimed")] == ["2"]
    after = [value for label, value in _metrics(app) if label.startswith("Lower bound")]
    assert after != before and 1.0 < float(after[0]) <= 2.0


def test_audit_page_flags_the_control_and_explains_lower_bounds():
    app = open_page(PAGE, mechanism="laplace", trials="20000")
    assert_no_errors(app)
    text = " ".join(m.value for m in app.markdown)
    assert "consistent with its claim" in text and "violates its claim" in text
    assert "never" in text and "proves a mechanism private" in text
    labels = [label for label, _ in _metrics(app)]
    assert sum(label.startswith("Lower bound (95% confidence)") for label in labels) == 2
    app.selectbox(key="mechanism").set_value("pate").run()
    assert_no_errors(app)
    claims = [label for label in (m.label for m in app.metric) if label.startswith("Claimed")]
    # LNMax, GNMax (a point of the Gaussian's exact curve: delta well above 1e-5), control
    assert claims[0] == claims[2] == "Claimed ε" and claims[1].startswith("Claimed ε, δ = 0.0")


def test_the_audit_chart_names_its_rows_as_the_verdicts_do():
    """The chart's rows read the cases' display names, not their ids (issue 53 §4)."""
    import re

    from app_helpers import chart_spec

    app = open_page(PAGE, mechanism="rr-prior", trials="20000")
    assert_no_errors(app)
    verdicts = [re.match(r"\*\*(.+?)\*\*: :(red|green|orange)\[", m.value) for m in app.markdown]
    titles = [found.group(1) for found in verdicts if found]
    spec = chart_spec(app, "audit_chart")
    rows = [text.replace("<br>", " ") for text in spec["layout"]["yaxis"]["ticktext"]]
    hovered = spec["data"][0]["y"]
    assert len(titles) >= 2 and titles[0].startswith("RR with prior")
    assert [row.removesuffix(" (control)") for row in rows] == titles, rows
    assert [row.removesuffix(" (control)") for row in hovered] == titles
