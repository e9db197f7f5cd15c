import pytest
from app_helpers import app_with, assert_no_errors, open_page, opened_once
from default_views import GROUP, default_view

from labeldp_core.data import dataset_info, loaders

RR_PAGE = "pages/randomized_response.py"

#: These tests read the pages' text, controls and ε spent, never what a model learnt: the models
#: the pages train take one epoch on 64 examples (a page at its default epochs trained for
#: seconds, to check a sidebar caption).
#: A page opened with no link is the run the readable-charts and warm-coverage tours read
#: (``default_views``, trained as here), so this module runs on their worker.
pytestmark = [pytest.mark.usefixtures("instant_training"), pytest.mark.xdist_group(GROUP)]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory):
    """The home page's run (no link, an empty cache), read by two tests: it trains nothing."""
    return opened_once(tmp_path_factory.mktemp("home") / "cache", None)


def test_home_page_explains_label_dp_and_links_pages(home):
    app = home
    assert_no_errors(app)
    text = " ".join(m.value for m in app.markdown)
    assert "Label differential privacy" in text and "DP-SGD" in text


def test_rr_page_computes_changes_epsilon_and_runs_a_sweep():
    app = open_page(RR_PAGE, epochs="1")
    assert_no_errors(app)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ε spent"] == "1"
    app.number_input(key="epsilon").set_value(4.0).run()
    assert_no_errors(app)
    assert app.select_slider(key="epsilon_slider").value == 4.0
    assert {m.label: m.value for m in app.metric}["ε spent"] == "4"
    app.select_slider(key="epsilon_slider").set_value(0.5).run()
    assert app.number_input(key="epsilon").value == 0.5
    sweep = app.button(key="run_sweep")
    assert "missing points" in sweep.label
    sweep.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "run_sweep"]
    assert any("Every point of this figure is cached" in c.value for c in app.caption)


def test_a_copied_link_restores_the_view():
    app = open_page(RR_PAGE, epsilon="2.0", dataset="digits", seed="3", model="mlp", epochs="1")
    assert_no_errors(app)
    assert app.number_input(key="epsilon").value == 2.0
    assert app.select_slider(key="epsilon_slider").value == 2.0
    assert app.sidebar.number_input(key="seed").value == 3
    assert app.sidebar.selectbox(key="model").value == "mlp"


def test_unavailable_dataset_falls_back_to_digits_with_a_clear_message(monkeypatch, tmp_path):
    monkeypatch.setenv("LABELDP_DATA_DIR", str(tmp_path))
    app = open_page(RR_PAGE, dataset="mnist", epochs="1")
    assert not app.exception
    messages = [e.value for e in app.error]
    assert len(messages) == 1
    assert "not on this machine" in messages[0] and "digits" in messages[0]
    assert {m.label: m.value for m in app.metric}["Training labels"] == "1,437"


@pytest.mark.parametrize("epsilon", ["0.001", "100"])
def test_extreme_epsilons_from_a_link_still_render(epsilon):
    app = open_page(RR_PAGE, epsilon=epsilon, epochs="1")
    assert_no_errors(app)


@pytest.mark.parametrize(
    ("page", "unused"),
    [
        ("pages/laplace_noise.py", {"dataset", "model", "epochs"}),
        ("pages/compare.py", {"seed"}),
        ("pages/randomized_response.py", set()),
    ],
)
def test_shared_controls_a_page_does_not_use_are_disabled_with_the_reason(page, unused):
    app = open_page(page, epochs="1")
    assert not app.exception
    sidebar = app.sidebar
    widgets = {
        "dataset": sidebar.selectbox(key="dataset"),
        "seed": sidebar.number_input(key="seed"),
        "model": sidebar.selectbox(key="model"),
        "epochs": sidebar.selectbox(key="epochs"),
    }
    assert {name for name, widget in widgets.items() if widget.disabled} == unused
    notes = [c.value for c in sidebar.caption if c.value.startswith("This page does not use")]
    assert len(notes) == (1 if unused else 0)
    assert all(name in notes[0] for name in unused)


@pytest.mark.parametrize("page", [None, "pages/laplace_noise.py", "pages/papers.py"])
def test_the_glossary_is_in_the_sidebar_of_every_page(page, home, tmp_path):
    from ui.glossary import GLOSSARY

    app = default_view(page, tmp_path / "cache").app if page else home
    assert not app.exception
    (panel,) = [e for e in app.sidebar.expander if e.label.startswith("Glossary")]
    text = " ".join(m.value for m in panel.markdown)
    for term, _ in GLOSSARY:
        assert f"**{term}**" in text
    assert "(2ε, (1 + e^ε)δ)-DP for changing one label" in text and "2.72 times" in text


def test_the_app_is_offline_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("LABELDP_OFFLINE")
    app_with().run()
    assert not loaders.downloads_allowed()


@pytest.mark.parametrize("page", ["pages/randomized_response.py", "pages/compare.py"])
def test_the_sidebar_says_the_bundled_datasets_split_is_public_and_fixed(page, tmp_path):
    app = default_view(page, tmp_path / "cache").app
    assert not app.exception
    notes = [c.value for c in app.sidebar.caption if "public and fixed" in c.value]
    assert notes == [dataset_info("digits").threat_note]


@pytest.mark.parametrize(
    ("page", "term", "words"),
    [
        ("pages/noisy_outputs.py", "Calinski-Harabasz", "between the groups' centres"),
        ("pages/dppl.py", "zCDP ρ (rho)", "ρ = 0.1 at δ = 10⁻⁵ is (2.25, 10⁻⁵)-DP"),
        ("pages/audit.py", "Canaries", "e/(e + 9) ≈ 23%"),
    ],
)
def test_the_glossary_explains_the_words_these_pages_use(page, term, words, tmp_path):
    # Calinski-Harabasz, zCDP ρ and canaries were on pages with no glossary entry.
    app = default_view(page, tmp_path / "cache").app
    (panel,) = [e for e in app.sidebar.expander if e.label.startswith("Glossary")]
    text = " ".join(m.value for m in panel.markdown)
    assert f"**{term}**" in text and words in text
