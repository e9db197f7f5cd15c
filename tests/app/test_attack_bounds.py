"""No bar on *What ε means*'s attack chart stands above the bound drawn beside it (issue 36).

Each bar is a share of right guesses over the training examples, so it carries sampling error:
a bar counts as above its tick only if even the low end of its Clopper-Pearson interval (one-sided,
level 1e-4) is above it. RR-with-prior's released label at ε = 1 used to be drawn at 0.82 beside a
tick at 0.23, the uniform-prior bound, though its release starts from the public image.
"""

import numpy as np
import pytest
from app_helpers import assert_no_errors, chart_spec, open_page
from scipy import stats

from labeldp_core import plots
from labeldp_core.data import load_dataset
from labeldp_core.families.rr_prior.experiment import set_guess_bound
from labeldp_core.families.rr_prior.release import prior_guess_bound
from labeldp_core.mechanisms import rr_with_prior
from labeldp_core.plots.attack import BOUND_COLOUR

#: One-sided error level of the interval around each bar.
LEVEL = 1e-4


def bars_above_ticks(spec: dict, examples: int) -> list[tuple[float, float, float]]:
    """(x, bar, tick) of every bar whose whole interval lies above the tick drawn on it.

    Bars and ticks are paired by position: a grouped bar's centre is its category plus its
    offset in the group (0.8 of a category split between the bars).
    """
    bars = [trace for trace in spec["data"] if trace["type"] == "bar"]
    (ticks,) = [trace for trace in spec["data"] if trace["type"] == "scatter"]
    centres = {}
    for index, trace in enumerate(bars):
        offset = (index - (len(bars) - 1) / 2) * 0.8 / len(bars)
        for x, y in zip(trace["x"], trace["y"], strict=True):
            if y is not None:
                centres[round(x + offset, 6)] = y
    above = []
    for x, tick in zip(ticks["x"], ticks["y"], strict=True):
        bar = centres[round(x, 6)]
        right = round(bar * examples)
        low = stats.beta.ppf(LEVEL, right, examples - right + 1) if right else 0.0
        if low > tick:
            above.append((x, bar, tick))
    return above


@pytest.mark.parametrize("epsilon", ["0.5", "2.0"])
def test_no_attack_bar_stands_above_its_bound(epsilon):
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon=epsilon)
    for button in [b for b in app.button if b.key == "compute_attacks"]:
        button.click().run()
    assert_no_errors(app)
    spec = chart_spec(app, "bars")
    names = [" ".join(name.split("<br>")) for name in spec["layout"]["xaxis"]["ticktext"]]
    # six mechanisms (vector RR since issue 49) and clean labels, on lines of a few words
    assert "RR with prior" in names and "Vector randomized response" in names and len(names) == 7
    (ticks,) = [trace for trace in spec["data"] if trace["type"] == "scatter"]
    # every private row: its released label and its model; vector RR releases bits, no label
    assert len(ticks["x"]) == 11
    assert bars_above_ticks(spec, load_dataset("digits").n_train) == []
    # The ticks are drawn in the colour the page's text names.
    assert ticks["marker"]["color"] == BOUND_COLOUR == "black"
    assert "black tick" in " ".join(m.value for m in app.markdown)


def test_the_check_catches_rr_with_prior_against_the_uniform_bound():
    # The old chart: RR-with-prior's 0.82 beside the uniform prior's 0.23 at ε = 1.
    rows = [{"mechanism": "RR with prior", "released_label": 0.82}]
    spec = plots.attack_bars(rows, 1.0, 10).to_plotly_json()
    assert [(round(b, 2), round(t, 2)) for _, b, t in bars_above_ticks(spec, 1437)] == [
        (0.82, 0.23)
    ]
    rows[0]["released_label_bound"] = 0.9
    assert bars_above_ticks(plots.attack_bars(rows, 1.0, 10).to_plotly_json(), 1437) == []
    # A prior whose bound was not stored draws no tick rather than the wrong one.
    rows[0]["released_label_bound"] = None
    (ticks,) = [t for t in plots.attack_bars(rows, 1.0, 10).data if t.type == "scatter"]
    assert list(ticks.y) == []


def test_rr_with_prior_stays_under_the_bound_of_the_sets_it_answers_from():
    # Clusters whose labels lean one way: a noisy, flattened prior picks the sets, the labels'
    # true spread within each set is what the bound starts from, and RR-with-prior meets it.
    rng = np.random.default_rng(0)
    clusters = rng.integers(0, 5, 20_000)
    labels = np.where(rng.random(20_000) < 0.7, clusters * 2, rng.integers(0, 10, 20_000))
    flat = np.full((5, 10), 0.05)
    flat[np.arange(5), np.arange(5) * 2] = 0.55  # the release's prior: weaker than the truth
    priors = flat[clusters]
    for epsilon in (0.25, 1.0, 4.0):
        released = rr_with_prior(labels, priors, epsilon, rng)
        measured = float(np.mean(released == labels))
        bound = set_guess_bound(priors, labels, epsilon, epsilon)
        assert measured <= bound + 0.01
        # The flattened prior's own bound is not one the release obeys at ε = 1.
        if epsilon == 1.0:
            assert measured > prior_guess_bound(priors, epsilon) + 0.05
    # With a uniform prior every example shares one set: the bound is RR's, e^ε/(e^ε + K - 1).
    uniform = np.full((20_000, 10), 0.1)
    balanced = np.arange(20_000) % 10
    assert set_guess_bound(uniform, balanced, 1.0, 1.0) == pytest.approx(plots.guess_bound(1, 0.1))
