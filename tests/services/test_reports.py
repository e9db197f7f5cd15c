import dataclasses
import html
import json
import re

from fake_results import fake_result
from written import block_lines

from labeldp_core import plots
from labeldp_core.__main__ import main
from labeldp_core.accounting.risk import Prior
from labeldp_core.data.registry import DIGITS_EPOCHS
from labeldp_core.engine.spec import RunResult
from labeldp_core.experiments.demo import CLASS_EPSILONS, DEMO_EPSILONS, DEMO_SEEDS, demo_configs
from labeldp_core.plots.price_report import price_of_privacy_report
from labeldp_core.registry import MECHANISMS
from labeldp_core.services.price_of_privacy import AuditedBound, PriceOfPrivacy
from labeldp_core.services.reports import html_report, result_rows, tables_report


def _result(mechanism: str, unit: str, **scores: float) -> RunResult:
    return fake_result(
        mechanism=mechanism,
        epsilon_spent=0.97,
        delta=1e-5 if unit == "example" else 0.0,
        privacy_unit=unit,
        **scores,
    )


def test_rows_keep_the_accounting_and_only_the_scores_that_apply():
    rows = result_rows(
        [
            _result("rr", "label", test_accuracy=0.5, baseline_test_accuracy=0.9, flip_rate=0.7),
            _result("laplace-regression", "label", test_mse=3.0, baseline_test_mse=1.0),
        ]
    )
    assert rows[0]["epsilon_spent"] == 0.97 and rows[0]["flip_rate"] == 0.7
    assert "test_mse" not in rows[0] and "test_accuracy" not in rows[1]


def test_html_report_is_standalone_and_names_the_privacy_units():
    results = [
        _result("rr", "label", test_accuracy=0.5, baseline_test_accuracy=0.9),
        _result("dpsgd", "example", test_accuracy=0.4, baseline_test_accuracy=0.9),
    ]
    figure = plots.score_vs_epsilon({"rr": results[:1]}, 0.9)
    page = html_report("A <report>", [(figure, "caption & more")], results, {"dataset": "digits"})
    assert page.startswith("<!DOCTYPE html>")
    assert "A &lt;report&gt;" in page and "caption &amp; more" in page
    assert "replace-one" in page and "add/remove" in page
    # plotly.js is inlined, so no script is fetched from a server.
    assert not re.search(r"<script[^>]+src=", page)
    assert "Plotly.newPlot" in page
    assert "Diagnostics, not private" in page  # the table's flip rates and baselines


def test_a_tables_report_is_the_same_standalone_frame_with_no_script():
    page = tables_report("Papers <&>", "Our figures & theirs", {"A <table>": [{"x": "<b>"}]})
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<title>Papers &lt;&amp;&gt;</title>" in page and "<h1>Papers &lt;&amp;&gt;</h1>" in page
    assert "<p>Our figures &amp; theirs</p>" in page and "<h2>A &lt;table&gt;</h2>" in page
    assert "&lt;b&gt;" in page and "<script" not in page
    assert "max-width: 1300px" in page and "labeldp explorer " in page


def test_html_report_names_the_diagnostics_it_shows():
    result = dataclasses.replace(
        _result("rr", "label", test_accuracy=0.5, baseline_test_accuracy=0.9),
        flip_rate=0.3,
        diagnostics={"private": False, "keys": ["flip_rate", "details.confusion"], "note": ""},
    )
    page = html_report("rr", [], [result], {})
    assert "Diagnostics, not private: flip rate." in page


def test_demo_set_covers_every_mechanism_grid_and_seed():
    configs = demo_configs("digits")
    assert {c.mechanism for c in configs} == set(MECHANISMS)
    rr = [c for c in configs if c.mechanism == "rr"]
    extra = set(CLASS_EPSILONS) - set(DEMO_EPSILONS)  # the page's own point, seed 0 only
    assert len(rr) == len(DEMO_EPSILONS) * len(DEMO_SEEDS) + len(extra)
    assert {c.epsilon for c in rr if c.seed != 0} == set(DEMO_EPSILONS)
    assert {c.epochs for c in rr} == {DIGITS_EPOCHS}
    fashion = [c for c in demo_configs("fashion-mnist") if c.mechanism == "rr"]
    assert len(fashion) == len(DEMO_EPSILONS) * len(DEMO_SEEDS)


def test_sweep_writes_an_html_report(tmp_path, capsys):
    path = tmp_path / "report.html"
    code = main(
        [
            "sweep",
            "rr",
            "--dataset",
            "digits",
            "--epsilons",
            "2",
            "--epochs",
            "1",
            "--html",
            str(path),
            "--json",
        ]
    )
    assert code == 0
    results = json.loads(capsys.readouterr().out)
    text = path.read_text()
    assert "rr on digits" in text and f"{results[0]['test_accuracy']:.4g}" in text


def test_html_report_says_what_each_epsilon_protects():
    from labeldp_core.families.threat import EXAMPLE_DP, LABEL_DP

    label, example = LABEL_DP.card("float"), EXAMPLE_DP.card("secure", 1e-5, "seeded")
    results = [
        dataclasses.replace(_result("rr", "label"), threat_model=label),
        dataclasses.replace(_result("dpsgd", "example"), threat_model=example),
    ]
    page = html_report("cards", [], results, {})
    assert "What each epsilon protects" in page
    assert html.escape(label["protects"]) in page and html.escape(example["protects"]) in page
    assert "teaching run" in page and "os.urandom" in page


def test_the_price_of_privacy_report_plays_its_frames_offline_when_asked():
    runs = tuple(
        dataclasses.replace(
            _result("rr", "label", test_accuracy=0.3 + 0.1 * e), epsilon=e, epsilon_spent=e
        )
        for e in (0.5, 1.0, 2.0)
    )
    audit = AuditedBound("rr", 1.0, 0.93, 1.0, 0.0, "release", "randomized response")
    evidence = PriceOfPrivacy("digits", 10, {"rr": runs}, (audit,))
    page = price_of_privacy_report(evidence, {"dataset": "digits"})
    assert "Frames at ε = 0.5, 1, 2: every ε computed" in page
    assert "rr at ε = 1: ε ≥ 0.93 (release, randomized response; claim 1, δ = 0)" in page
    assert not re.search(r"<script[^>]+src=", page)  # plotly.js inlined: no server, no network
    (frames,) = re.findall(r"Plotly\.addFrames\('[^']+', (\[.*?\])\);", page, re.S)
    assert [frame["name"] for frame in json.loads(frames)] == ["0.5", "1", "2"]
    assert "Plotly.animate(" not in page  # it waits for its play button, not the page's opening
    assert "Play" in page and "Pause" in page and "replace-one" in page


def test_the_price_of_privacy_report_names_the_prior_of_each_guess():
    # Issue 53 section 4 / issue 49 item 1: the guess of one label was given from the blind 1/K
    # alone, "guess ≤ 23% (blind 10%)"; under label DP the image is public, so the attacker
    # starts from what a model of the image says, and a uniform-prior figure names its prior.
    runs = tuple(
        dataclasses.replace(
            _result("rr", "label", test_accuracy=0.5, baseline_test_accuracy=0.95),
            epsilon=1.0,
            epsilon_spent=1.0,
            seed=seed,
        )
        for seed in DEMO_SEEDS
    )
    evidence = PriceOfPrivacy("digits", 10, {"rr": runs}, (), Prior(0.95, "the clean model"))
    page = price_of_privacy_report(evidence, {"dataset": "digits"})
    (frames,) = re.findall(r"Plotly\.addFrames\('[^']+', (\[.*?\])\);", page, re.S)
    written = [t for trace in json.loads(frames)[0]["data"] for t in block_lines(trace.get("text"))]
    assert "guess ≤ 23% from prior 1/10" in written, written
    assert "guess ≤ 98% from the image's π 95%" in written, written
    shown = html.unescape(page)
    assert "(blind 10%)" not in shown
    assert "the image's prior π = 95% (the clean model)" in shown
    assert "the uniform prior π = 1/K = 10% of an attacker who never sees the image" in shown
