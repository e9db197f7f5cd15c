"""The price of privacy page: the cached points played as frames, on a read-only server too."""

import pytest
from app_helpers import assert_no_errors, chart_spec, open_page
from written import block_lines

import ui.results
from labeldp_core.engine import context
from labeldp_core.engine.spec import COMMON_SETTINGS
from labeldp_core.experiments import run
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_configs
from labeldp_core.services import release_audits as audit_suite

PAGE = "pages/price_of_privacy.py"
#: RR computed at two grid epsilons with every seed, one epoch, the sidebar's default model.
COMPUTED = (0.5, 1.0)


@pytest.fixture
def rr_runs(cache, instant_training):
    configs = demo_configs(
        "digits", ["rr"], DEMO_SEEDS, 1, COMMON_SETTINGS["model"].default, variants=False
    )
    return [run(c, cache) for c in configs if c.epsilon in COMPUTED]


@pytest.fixture
def read_only_server(monkeypatch):
    """Classroom mode, where anything the page computed would fail the test."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("the page computed something")

    monkeypatch.setenv("LABELDP_READ_ONLY", "1")
    monkeypatch.setattr(ui.results, "run_with_progress", refuse)
    monkeypatch.setattr(audit_suite, "audit_case", refuse)
    monkeypatch.setattr(context.RunContext, "train", refuse)


def test_the_cached_points_play_as_frames_and_nothing_is_computed(rr_runs, read_only_server):
    app = open_page(PAGE, epochs="1", mechanisms=["rr", "laplace"])
    assert_no_errors(app)
    assert [t.value for t in app.title] == ["The price of privacy"]
    spec = chart_spec(app, "price_of_privacy")
    assert [frame["name"] for frame in spec["frames"]] == ["0.5", "1"]
    for frame in spec["frames"]:
        accuracy = frame["data"][5]  # the accuracy markers (cursors, bounds, their values first)
        scores = [r.test_accuracy for r in rr_runs if f"{r.epsilon:g}" == frame["name"]]
        assert accuracy["y"] == pytest.approx([sum(scores) / len(scores)])
        assert accuracy["customdata"][0][1:] == [3, min(scores), max(scores)]
    steps = spec["layout"]["sliders"][0]["steps"]
    assert [s["label"] for s in steps] == ["0.5", "1"]
    assert app.get("download_button")  # the standalone report


@pytest.mark.usefixtures("read_only_server")
def test_an_empty_cache_says_to_warm_it_and_draws_nothing():
    app = open_page(PAGE, epochs="1")
    assert_no_errors(app)
    (note,) = [box.value for box in app.info]
    assert "Nothing is cached" in note and "labeldp_core warm --dataset digits" in note
    assert not app.get("plotly_chart")


def test_each_guess_on_the_screen_names_its_prior(rr_runs, read_only_server):
    # Issue 53 / issue 49 item 1: "guess ≤ 23% (blind 10%)" gave the uniform prior's bound as
    # the risk; the image is public, so the screen starts from the image's prior too.
    app = open_page(PAGE, epochs="1", mechanisms=["rr"])
    assert_no_errors(app)
    first = chart_spec(app, "price_of_privacy")["frames"][0]
    written = [t for trace in first["data"] for t in block_lines(trace.get("text"))]
    pi = sum({r.seed: r.baseline_test_accuracy for r in rr_runs}.values()) / len(DEMO_SEEDS)
    assert "guess ≤ 15% from prior 1/10" in written, written  # ε = 0.5, K = 10
    assert f"from the image's π {pi:.0%}" in " ".join(written), written
    caption = " ".join(c.value for c in app.caption)
    assert "from the uniform prior π = 1/K of an attacker who never sees the image" in caption


def test_the_screen_gives_one_risk_number_per_prior_and_no_attack_gain(rr_runs, read_only_server):
    # Issue 53: "guess ≤ 23%" beside "gain ≤ 63%": a reader takes the larger number for the
    # chance of guessing a label. The top panel, its values at the cursor and the caption
    # give the guess from each prior only (and the flips, a cost), no attack gain.
    app = open_page(PAGE, epochs="1", mechanisms=["rr"])
    assert_no_errors(app)
    spec = chart_spec(app, "price_of_privacy")
    names = [trace.get("name") or "" for trace in spec["data"]]
    written = [line for frame in spec["frames"] for line in block_lines(frame["data"][4]["text"])]
    said = " ".join([*names, *written, *(c.value for c in app.caption)])
    assert "gain" not in said, [t for t in [*names, *written] if "gain" in t]
    assert any(line.startswith("guess ≤") for line in written), written
