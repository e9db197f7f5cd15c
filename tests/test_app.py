from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
RR_PAGE = "pages/randomized_response.py"
TIMEOUT = 300  # generous: the machines are shared; this is not a speed check


def _app(**query: str) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        app.query_params[key] = value
    return app


def _page(page: str, **query: str) -> AppTest:
    """Open ``page`` the way a browser opens a link to it: the entry script runs first."""
    app = _app(**query)
    app.run()
    app.switch_page(page)
    app.run()
    return app


def _no_errors(app: AppTest) -> None:
    assert not app.exception, [e.value for e in app.exception]
    assert not app.error, [e.value for e in app.error]


def test_home_page_explains_label_dp_and_links_pages():
    app = _app()
    app.run()
    _no_errors(app)
    text = " ".join(m.value for m in app.markdown)
    assert "Label differential privacy" in text and "DP-SGD" in text


def test_rr_page_computes_changes_epsilon_and_runs_a_sweep():
    app = _page(RR_PAGE, epochs="1")
    _no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ε spent (label, replace-one)"] == "1"
    app.sidebar.number_input(key="epsilon").set_value(4.0).run()
    _no_errors(app)
    assert app.sidebar.select_slider(key="epsilon_slider").value == 4.0
    assert {m.label: m.value for m in app.metric}["ε spent (label, replace-one)"] == "4"
    app.sidebar.select_slider(key="epsilon_slider").set_value(0.5).run()
    assert app.sidebar.number_input(key="epsilon").value == 0.5
    sweep = app.button(key="run_sweep")
    assert "missing points" in sweep.label
    sweep.click().run()
    _no_errors(app)
    assert not [b for b in app.button if b.key == "run_sweep"]
    assert any("Every point of this curve is cached" in c.value for c in app.caption)


def test_a_copied_link_restores_the_view():
    app = _page(RR_PAGE, epsilon="2.0", dataset="digits", seed="3", model="mlp", epochs="1")
    _no_errors(app)
    assert app.sidebar.number_input(key="epsilon").value == 2.0
    assert app.sidebar.select_slider(key="epsilon_slider").value == 2.0
    assert app.sidebar.number_input(key="seed").value == 3
    assert app.sidebar.selectbox(key="model").value == "mlp"


def test_unavailable_dataset_falls_back_to_digits_with_a_clear_message(monkeypatch, tmp_path):
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path))
    app = _page(RR_PAGE, dataset="mnist", epochs="1")
    assert not app.exception
    messages = [e.value for e in app.error]
    assert len(messages) == 1
    assert "not on this machine" in messages[0] and "digits" in messages[0]
    assert {m.label: m.value for m in app.metric}["Training labels"] == "1,437"


@pytest.mark.parametrize("epsilon", ["0.001", "100"])
def test_extreme_epsilons_from_a_link_still_render(epsilon):
    app = _page(RR_PAGE, epsilon=epsilon, epochs="1")
    _no_errors(app)
