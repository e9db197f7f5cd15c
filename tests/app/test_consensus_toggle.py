"""Consensus retraining on the pages (issue 41 part 1): a toggle per page, a variant on Compare.

The toggle is off by default and then draws nothing; on, it draws the page's sweep with and
without consensus retraining (``consensus=1``), the consensus set's figures and the paired gain
at the page's ε. Compare adds each label-releasing mechanism retrained on its consensus set as
a curve of its own, only when asked (its first screen must not grow).
"""

import json

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page
from fake_results import fake_result

from labeldp_core.engine.consensus import CONSENSUS_NOTE
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs, demo_epsilons
from labeldp_core.experiments.runner import result_key
from labeldp_core.plots.compare import short_name
from labeldp_core.plots.consensus import (
    consensus_curves,
    consensus_name,
    consensus_rows,
    consensus_set_figure,
)
from ui.consensus import offers_consensus, with_consensus

#: The Laplace page's classifiers by legend name (as pages/laplace_labels.py names them).
CLASSIFIERS = (
    "Laplace, argmax",
    "Laplace, clamp + renormalise",
    "Laplace, clamp + round",
    "ALIBI",
)
CONSENSUS_KEYS = {"consensus_accuracy", "consensus_set"}


def _retrained(epsilon: float, seed: int, first: float, final: float) -> RunResult:
    figures = {"size": 8, "share": 0.8, "label_accuracy": 0.9, "first_test_score": first}
    return fake_result(
        epsilon=epsilon,
        seed=seed,
        test_accuracy=final,
        label_accuracy=0.6,
        baseline_test_accuracy=0.95,
        settings={"consensus": 1},
        details={CONSENSUS_NOTE: figures},
    )


def test_the_retrained_curve_keeps_its_series_colour_and_is_dotted_with_its_own_name():
    plain = {"RR": [fake_result(epsilon=e, test_accuracy=0.5) for e in (1.0, 2.0)]}
    retrained = {"RR": [_retrained(e, 0, 0.5, 0.6) for e in (1.0, 2.0)]}
    figure = consensus_curves(plain, retrained, 0.95, chance=0.1, marked_epsilon=1.0)
    lines = {t.name: t for t in figure.data if t.mode == "lines+markers"}
    assert set(lines) == {"RR", "RR + consensus"}
    assert lines["RR + consensus"].line.color == lines["RR"].line.color
    assert lines["RR + consensus"].line.dash == "dot" != lines["RR"].line.dash
    assert list(lines["RR + consensus"].y) == [0.6, 0.6]
    assert consensus_name("RR") == "RR + consensus"


def test_the_set_figure_and_the_gain_table_read_the_consensus_note():
    retrained = {"RR": [_retrained(1.0, 1, 0.5, 0.58), _retrained(1.0, 0, 0.5, 0.55)]}
    figure = consensus_set_figure(retrained, marked_epsilon=1.0)
    values = {t.name: list(t.y) for t in figure.data}
    assert values["RR: share kept"] == [0.8]
    assert values["RR: kept labels"] == [0.9] and values["RR: all released labels"] == [0.6]
    rows = consensus_rows(retrained, 1.0)
    assert [row["seed"] for row in rows] == [0, 1]
    assert [row["gain"] for row in rows] == pytest.approx([0.05, 0.08])
    assert rows[0]["set size"] == 8 and consensus_rows(retrained, 2.0) == []


def test_with_consensus_changes_only_the_setting_and_only_label_releasers_offer_it():
    config = demo_configs("digits", ["rr-prior"], (0,), 1, "logistic", variants=False)[0]
    retrained = with_consensus(config)
    assert dict(retrained.settings) == dict(config.settings) | {"consensus": 1}
    assert (retrained.epsilon, retrained.seed, retrained.epochs) == (
        config.epsilon,
        config.seed,
        config.epochs,
    )
    offered = {m for m in MECHANISMS if offers_consensus(m)}
    assert {"rr", "rr-prior", "lp-2st", "laplace", "alibi"} <= offered
    assert not offered & {"pate", "dpsgd", "dppl-mean", "laplace-regression"}


def _chart_keys(app) -> set[str]:
    return {c.proto.id.rsplit("-", 1)[-1] for c in app.get("plotly_chart")}


def _lines(app, key: str) -> dict[str, dict]:
    spec = chart_spec(app, key)
    return {t["name"]: t for t in spec["data"] if t.get("mode") == "lines+markers"}


@pytest.mark.usefixtures("instant_training")
def test_the_rr_toggle_runs_both_sweeps_and_shows_both_curves_and_the_set():
    app = open_page("pages/randomized_response.py", epochs="1", model="logistic")
    assert_no_errors(app)
    assert not CONSENSUS_KEYS & _chart_keys(app)  # off by default: nothing more is drawn
    app.toggle(key="consensus").set_value(True).run()
    assert_no_errors(app)
    button = app.button(key="consensus_run")
    grid = demo_epsilons("rr")
    # The plain sweep and the retrained one, one seed each (the page's own point is stored).
    assert f"{2 * len(grid) - 1} missing points" in button.label
    button.click().run()
    assert_no_errors(app)
    assert not [b for b in app.button if b.key == "consensus_run"]
    assert _chart_keys(app) >= CONSENSUS_KEYS
    lines = _lines(app, "consensus_accuracy")
    assert set(lines) == {"randomized response", "randomized response + consensus"}
    assert all(len(line["x"]) == len(grid) for line in lines.values())
    (row,) = _gain_rows(app)
    assert 0 < row["set size"] <= 1437 and row["gain"] == pytest.approx(
        row["with consensus"] - row["without"],
        abs=1e-4,  # each shown to 4 significant digits
    )
    assert "read the true training labels" in " ".join(c.value for c in app.caption)


@pytest.mark.usefixtures("instant_training")
@pytest.mark.parametrize(
    ("page", "names"),
    [
        ("pages/rr_prior.py", ["RR", "RR with prior", "LP-2ST"]),
        ("pages/laplace_labels.py", [*CLASSIFIERS]),
    ],
)
def test_each_series_of_the_page_gets_its_retrained_curve(page, names):
    app = open_page(page, epochs="1", model="logistic")
    assert_no_errors(app)
    app.toggle(key="consensus").set_value(True).run()
    app.button(key="consensus_run").click().run()
    assert_no_errors(app)
    lines = _lines(app, "consensus_accuracy")
    assert set(lines) == {*names, *map(consensus_name, names)}
    for name in names:  # a pair reads as one: the same colour, the retrained one dotted
        plain, retrained = lines[name]["line"], lines[consensus_name(name)]["line"]
        assert retrained["color"] == plain["color"] and retrained["dash"] == "dot"
    assert {row["mechanism"] for row in _gain_rows(app)} == set(names)


def _gain_rows(app) -> list[dict]:
    """The rows of the paired-gain table at the page's ε."""
    (table,) = [t.value for t in app.dataframe if "set size" in t.value]
    return table.to_dict("records")


def _store(cache, configs: list[RunConfig], score: float) -> None:
    """Store a made-up result for each of ``configs`` (with consensus figures if retrained)."""
    for config in configs:
        retrained = dict(config.settings).get("consensus") == 1
        details = {CONSENSUS_NOTE: {"size": 900, "share": 0.6, "label_accuracy": 0.8}}
        result = fake_result(
            mechanism=config.mechanism,
            epsilon=config.epsilon,
            epsilon_spent=config.epsilon,
            seed=config.seed,
            epochs=config.epochs,
            settings=dict(config.settings),
            test_accuracy=score + 0.1 * retrained,
            baseline_test_accuracy=0.95,
            details=details if retrained else {},
        )
        cache.put_json(result_key(cache, config), result.to_dict())


def _missing(app) -> int:
    """How many points Compare's button would compute (0 without a button)."""
    buttons = [b.label for b in app.button if b.key == "compute_missing"]
    return int(buttons[0].split("(")[1].split()[0]) if buttons else 0


def test_compare_adds_consensus_variants_only_when_asked(cache):
    chosen = ["rr", "pate"]
    configs = demo_configs("digits", chosen, DEMO_SEEDS, 1, "cnn", variants=False)
    _store(cache, configs, 0.5)
    app = open_page("pages/compare.py", epochs="1", mechanisms=chosen)
    assert_no_errors(app)
    assert app.checkbox(key="consensus_variants").value is False
    before = _missing(app)
    names = {short_name(n.split(" [")[0]) for n in _lines(app, "compare_classification")}
    assert names == {short_name(MECHANISMS[m].title) for m in chosen}
    app.checkbox(key="consensus_variants").check().run()
    assert_no_errors(app)
    # Only RR releases labels to train on; PATE gets no variant.
    grid = len(demo_epsilons("rr")) * len(DEMO_SEEDS)
    assert _missing(app) == before + grid
    _store(cache, [with_consensus(c) for c in configs if c.mechanism == "rr"], 0.5)
    app.run()
    lines = _lines(app, "compare_classification")
    variant = consensus_name(short_name(MECHANISMS["rr"].title))
    (drawn,) = [n for n in lines if n.startswith(variant)]
    (plain,) = [n for n in lines if n.startswith(MECHANISMS["rr"].title + " [")]
    assert lines[drawn]["y"] == pytest.approx([0.6] * len(demo_epsilons("rr")))
    assert lines[drawn]["line"]["color"] != lines[plain]["line"]["color"]
    annotations = json.dumps(chart_spec(app, "compare_classification")["layout"]["annotations"])
    assert variant.split()[0] in annotations and "consensus" in annotations
