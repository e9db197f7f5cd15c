"""The model audit's own default recipe: a model that memorises its canaries (issue 54).

On Fashion-MNIST the run's recipe (the CNN, 5 epochs) barely memorises a canary, so its
non-private control proves 0.28 and no claim can be tested; the audit trains the MLP for 60
epochs there unless the user asks for a model or epochs (docs/audit.md says how it was chosen).
"""

import json
import re
from pathlib import Path

import pytest

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.data.registry import DIGITS_EPOCHS
from labeldp_core.experiments import make_config
from labeldp_core.model_audit import audit_lines, audit_model, recipe, training_run
from tests.model_audit.stand_in import stored


@pytest.fixture
def trained(monkeypatch) -> list:
    """The configs the audit's trainings ran with (each training stands in: nothing trains)."""
    configs: list = []

    def record(config, drawn, *args):
        configs.append(config)
        return stored(drawn, 260)

    monkeypatch.setattr(training_run, "_train", record)
    return configs


def test_fashion_mnist_audits_the_mlp_over_60_epochs_by_default(trained, tmp_path, capsys):
    assert (
        main(["audit", "rr", "--model", "--dataset", "fashion-mnist", "--epsilon", "1", "--json"])
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["epochs"] == 60 and report["model"] == "mlp"
    assert {(c.epochs, c.setting("model")) for c in trained} == {(60, "mlp")}
    assert {c.setting("learning_rate") for c in trained} == {report["learning_rate"]} == {7e-4}
    assert main(["audit", "rr", "--model", "--dataset", "fashion-mnist", "--epsilon", "1"]) == 0
    assert "model mlp, 60 epochs (the audit's recipe for fashion-mnist)" in capsys.readouterr().out


def test_a_model_or_epochs_asked_for_replace_the_audit_recipe(trained, tmp_path):
    cache = ResultCache(tmp_path)
    asked = audit_model("rr", "fashion-mnist", 1.0, cache=cache, epochs=5)
    assert (asked.epochs, asked.model) == (5, "mlp")
    cnn = audit_model("rr", "fashion-mnist", 1.0, cache=cache, settings={"model": "cnn"})
    assert (cnn.epochs, cnn.model) == (60, "cnn")


def test_a_dataset_without_an_audit_recipe_keeps_the_run_recipe(trained, tmp_path):
    audit = audit_model("rr", "digits", 1.0, cache=ResultCache(tmp_path))
    assert (audit.epochs, audit.model) == (DIGITS_EPOCHS, "cnn")


def test_pate_says_why_no_canary_can_test_it_and_trains_nothing(capsys, monkeypatch):
    monkeypatch.setattr(training_run, "_train", lambda *args: pytest.fail("trained"))
    args = ["audit", "pate", "--model", "--dataset", "digits", "--epsilon", "1"]
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mechanism"] == "pate" and report["label_epsilon"] == 1.0
    assert 0 < report["most_provable"]["2x budget"] < 1.0
    assert report["verdict"].startswith("this audit cannot test this claim: ")
    assert "one teacher's vote" in report["verdict"]
    assert main(args) == 0
    assert capsys.readouterr().out.strip().endswith(report["verdict"])


def test_the_price_screen_reads_the_audit_warm_computes_for_the_default_run(trained, tmp_path):
    from labeldp_core.experiments import make_config
    from labeldp_core.services.price_of_privacy import _model_bound
    from tests.fake_results import fake_result

    cache = ResultCache(tmp_path)
    warmed = audit_model("rr", "fashion-mnist", 2.0, cache=cache)  # as warm computes it
    default = make_config("rr", "fashion-mnist", 2.0)  # the run the screen shows: CNN, 5 epochs
    run = fake_result(dataset="fashion-mnist", epsilon=2.0, epochs=default.epochs)
    run = fake_result(**(run.to_dict() | {"settings": dict(default.settings)}))
    bound = _model_bound(run, 0, cache)
    assert bound is not None and bound.lower_bound == warmed.audited.epsilon_lower_bound
    assert bound.case == "1000 canaries, model mlp, 60 epochs, learning rate 0.0007"
    other = fake_result(dataset="fashion-mnist", epsilon=2.0, epochs=3, settings={"model": "cnn"})
    assert _model_bound(other, 0, cache) is None  # a run of other settings: its own audit only


@pytest.mark.parametrize(("mechanism", "epochs"), [("dpsgd", 40), ("labeldp-pro", 5)])
def test_a_mechanism_whose_recipe_sets_its_epochs_keeps_its_recipe(
    mechanism, epochs, trained, tmp_path
):
    # Their noise is calibrated over the recipe's steps (DP-SGD's published 40 epochs).
    audit = audit_model(mechanism, "fashion-mnist", 1.0, cache=ResultCache(tmp_path))
    assert (audit.epochs, audit.model) == (epochs, "cnn")


def test_a_learning_rate_in_the_recipe_trains_at_it_unless_one_is_asked_for(
    trained, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(
        recipe, "AUDIT_RECIPES", {"fashion-mnist": recipe.AuditRecipe("mlp", 60, 7e-4)}
    )
    cache = ResultCache(tmp_path)
    audit = audit_model("rr", "fashion-mnist", 1.0, cache=cache)
    assert {c.setting("learning_rate") for c in trained} == {7e-4}
    assert audit.learning_rate == 7e-4 and audit.to_dict()["learning_rate"] == 7e-4
    assert "model mlp, 60 epochs (the audit's recipe for fashion-mnist)" in audit_lines(audit)[0]
    asked = audit_model("rr", "fashion-mnist", 1.0, cache=cache, settings={"learning_rate": 1e-3})
    assert (asked.learning_rate, asked.model, asked.epochs) == (1e-3, "mlp", 60)
    assert "model mlp, 60 epochs, learning rate 0.001," in audit_lines(asked)[0]
    # The DP prototypes train no model on the labels: their encoder keeps its own rate.
    _, settings = recipe.audit_recipe("dppl-mean", "fashion-mnist", None, None)
    assert settings == {"model": "mlp"}


def test_a_recipe_without_a_learning_rate_trains_at_the_runs_own(trained, tmp_path, monkeypatch):
    monkeypatch.setattr(recipe, "AUDIT_RECIPES", {"fashion-mnist": recipe.AuditRecipe("mlp", 60)})
    audit = audit_model("rr", "fashion-mnist", 1.0, cache=ResultCache(tmp_path))
    run = make_config("rr", "fashion-mnist", 1.0, 0, 60, {"model": "mlp"})
    assert trained[0] == run  # the config, and so the cache key, of a recipe of model and epochs
    assert audit.learning_rate == run.setting("learning_rate") == 3e-3


def test_the_recipe_is_what_the_docs_say_and_what_their_grid_trained():
    text = " ".join((Path(__file__).parents[2] / "docs" / "audit.md").read_text().split())
    said = re.search(
        r"own recipe there: the (\w+) over (\d+) epochs at learning rate ([\d.e-]+)", text
    )
    fashion = recipe.AUDIT_RECIPES["fashion-mnist"]
    assert said is not None
    assert (said[1].lower(), int(said[2]), float(said[3])) == (
        fashion.model,
        fashion.epochs,
        fashion.learning_rate,
    )
    # The grid's table names what it trained (bench/model_audit_grid.py --table's first line).
    grid = (
        f"model {fashion.model}, {fashion.epochs} epochs, learning rate {fashion.learning_rate:g}"
    )
    assert grid in text
