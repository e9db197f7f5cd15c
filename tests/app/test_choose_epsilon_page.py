"""The Choose ε page: answers from the cache above the rest, bad input in one sentence."""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.cache import ResultCache
from labeldp_core.choosing import choice, make_target
from labeldp_core.choosing.choice import choose_epsilon
from labeldp_core.experiments import MECHANISMS
from tests.choosing.fake_curves import store_grid

PAGE = "pages/choose_epsilon.py"


@pytest.fixture
def warmed():
    """rr's and dpsgd's demo grid in the page's cache (accuracy 0.5 + slope·log2 ε; clean 0.95)."""
    cache = ResultCache()
    yield store_grid(cache, ("rr", "dpsgd"))
    cache.close()


def _asking(accuracy: float):
    app = open_page(PAGE)
    app.number_input(key="value").set_value(accuracy).run()
    return app


def test_the_answers_come_best_first_with_how_each_was_read(warmed):
    app = _asking(0.65)
    assert_no_errors(app)
    table = app.dataframe[0].value
    assert list(table["mechanism"]) == ["Randomized response", "DP-SGD baseline"]
    assert table["smallest ε"][0] == "≈ 2.83" and table["how"][0] == "interpolated, 2 to 4"
    assert table["rests on"][0] == "7 computed ε × 3 seeds"
    assert any(m.label.startswith("Guess of one label, uniform prior") for m in app.metric)
    assert any("no accountant here records" in c.value for c in app.caption)


def test_the_narrow_button_computes_by_bisection_and_the_answer_then_rests_on_more(
    warmed, monkeypatch
):
    monkeypatch.setattr(choice, "run", lambda config, cache: warmed.store(config, cache))
    app = _asking(0.65)
    app.number_input(key="budget").set_value(3).run()
    label = app.button(key="narrow").label
    assert label.startswith("Narrow 2 answers by bisection on ε (3 runs at most, time unknown")
    app.button(key="narrow").click().run()
    assert_no_errors(app)
    table = app.dataframe[0].value
    assert table["rests on"][0] == "8 computed ε × 3 seeds"
    assert table["how"][0] == "interpolated, 2 to 2.83"


def test_a_read_only_server_offers_no_computation(warmed, monkeypatch):
    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    app = _asking(0.65)
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "narrow"]
    assert any("read-only" in c.value for c in app.caption)


@pytest.mark.parametrize(
    ("accuracy", "sentence"),
    [(0.0, "every model reaches 0"), (0.99, "above what the model trained on the true labels")],
)
def test_bad_input_gets_one_clear_sentence(warmed, accuracy, sentence):
    app = _asking(accuracy)
    assert not app.exception
    assert len(app.error) == 1 and sentence in app.error[0].value


def test_i_can_afford_x_lists_each_mechanism_at_the_nearest_computed_epsilon(warmed):
    app = _asking(0.65)
    app.number_input(key="afford").set_value(2.0).run()
    table = app.dataframe[1].value
    assert list(table["test accuracy"]) == [0.6, 0.55]  # rr, then dpsgd (another unit)
    assert list(table["privacy unit"]) == ["label", "example"]


def test_on_a_table_of_ones_own_the_page_recommends_a_public_proxy():
    from labeldp_core.data.tables import add_table, example_table

    info = add_table(example_table("wine"), "class", "wine")
    app = open_page(PAGE, dataset=f"wine · {info.id}")
    assert not app.exception
    assert any("public proxy" in c.value and "wine's own curves" in c.value for c in app.caption)
    bundled = open_page(PAGE)
    assert not any("wine's own curves" in c.value for c in bundled.caption)


def test_example_level_privacy_lists_example_level_mechanisms_only(warmed):
    app = _asking(0.6)
    app.selectbox(key="unit").set_value("example").run()
    assert_no_errors(app)
    table = app.dataframe[0].value
    assert list(table["mechanism"]) == ["DP-SGD baseline"]
    assert table["privacy unit"][0] == "add/remove one example"


@pytest.mark.parametrize("given", ["within", "Within P points of the clean model"])
def test_a_link_names_the_target_by_its_value_or_its_label(given):
    app = open_page("pages/choose_epsilon.py", target=given)
    assert_no_errors(app)
    assert app.selectbox(key="target").value == "within"


def test_the_page_answers_from_the_points_choose_compute_made_from_an_empty_cache():
    made = choose_epsilon(
        "digits",
        make_target("accuracy", 0.5),
        mechanisms=["dppl-public"],  # the cheapest real runs: no model is trained
        compute=True,
        fill=True,
        max_trainings=6,
    )
    assert made.trainings == 6 and made.reached
    app = _asking(0.5)
    assert_no_errors(app)
    table = app.dataframe[0].value
    assert list(table["mechanism"]) == [MECHANISMS["dppl-public"].title]
    assert table["smallest ε"][0] == made.answers[0].row()["smallest ε"]
    assert table["rests on"][0] == made.answers[0].row()["rests on"]


def test_the_risk_headline_starts_from_the_image_not_from_a_uniform_prior(warmed):
    # Issue 49, item 1: the stored runs' clean model scores 0.95 on the test images; at ε = 1
    # the headline is that prior's bound, 98.1%, and 23.2% shows only beside its uniform prior.
    app = _asking(0.65)
    assert_no_errors(app)
    shown = {m.label: m.value for m in app.metric}
    informed = [label for label in shown if "from the image" in label]
    assert informed and shown[informed[-1]] == "≤ 98.1%"
    assert "π = 95.0%" in informed[-1]
    for label, value in shown.items():
        assert value != "≤ 23.2%" or "uniform prior" in label, label
    captions = [c.value for c in app.caption if "98.1%" in c.value]
    assert captions and "the clean model's test accuracy" in captions[-1]
