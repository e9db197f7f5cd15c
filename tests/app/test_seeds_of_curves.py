"""One statistic per quantity (issue 53, section 3): every page's curve over ε is the seeds' mean.

The Randomized response page and Compare draw, at each ε, the mean over the demo seeds with the
band from the lowest to the highest seed. The other pages' curves swept the sidebar's seed only,
so the same quantity read 0.614 on one page and 0.582 on another. Each page here is opened on an
empty cache (nothing is computed: the pages only ask which points are stored); every sweep it
asks for over more than one ε must ask for every demo seed, and its caption must say that each
point is their mean. What ε means' attack bars, at one ε, stay one seed and say so.
"""

import pytest
from app_helpers import assert_no_errors, open_page

import labeldp_core.experiments
from labeldp_core.base.numbers import in_words
from labeldp_core.experiments import road
from labeldp_core.experiments.demo import DEMO_SEEDS

#: The pages with a curve over ε, and the mechanism whose sweep each asks for (PATE: below).
CURVE_PAGES = {
    "pages/rr_prior.py": "rr-prior",
    "pages/vector_rr.py": "vector-rr",
    "pages/laplace_labels.py": "laplace",
    "pages/dpsgd.py": "dpsgd",
    "pages/dppl.py": "dppl-public",
}
MEAN_WORDS = f"mean over seeds {in_words(DEMO_SEEDS)}"


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[float, ...], tuple[int, ...]]]:
    """Every sweep a page asks for, as (mechanism, ε, seeds); no page computes a point."""
    calls = []
    original = labeldp_core.experiments.sweep_configs

    def spy(mechanism, dataset, epsilons, seeds, *args, **kwargs):
        calls.append((mechanism, tuple(epsilons), tuple(seeds)))
        return original(mechanism, dataset, epsilons, seeds, *args, **kwargs)

    monkeypatch.setattr(labeldp_core.experiments, "sweep_configs", spy)
    return calls


@pytest.fixture
def no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every point not stored is a button, never a computation."""
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    monkeypatch.setattr(road, "on_demo_grid", lambda config: False)


def _assert_curves_are_means(app, asked: list, mechanism: str) -> None:
    """Every sweep over ε asked for every demo seed, ``mechanism``'s among them; said so."""
    assert_no_errors(app)
    curves = [(m, seeds) for m, epsilons, seeds in asked if len(epsilons) > 1]
    assert any(m == mechanism for m, _ in curves), asked
    assert all(seeds == DEMO_SEEDS for _, seeds in curves), curves
    captions = " ".join(c.value for c in app.caption)
    assert f"Each point is the {MEAN_WORDS}" in captions, captions


@pytest.mark.usefixtures("no_computing")
@pytest.mark.parametrize("page", CURVE_PAGES)
def test_every_curve_over_epsilon_is_the_mean_over_the_demo_seeds(cache, asked, page):
    app = open_page(page, epochs="1", epsilon="1.0", seed="1")
    _assert_curves_are_means(app, asked, CURVE_PAGES[page])


@pytest.mark.usefixtures("instant_training")
def test_pates_student_curve_is_the_mean_over_the_demo_seeds(cache, asked):
    # The student's curve is drawn beside a computed run only: one small PATE run at ε = 1.
    app = open_page(
        "pages/pate.py", epochs="1", epsilon="1.0", seed="1", teachers="5", queries="50",
        teacher_epochs="1", self_training_rounds="0",
    )  # fmt: skip
    _assert_curves_are_means(app, asked, "pate")


@pytest.mark.usefixtures("no_computing")
def test_what_epsilon_means_says_its_attack_bars_are_one_seed(cache, asked):
    app = open_page("pages/epsilon_meaning.py", epochs="1", epsilon="1.0", seed="1")
    assert_no_errors(app)
    bars = {seeds for _, epsilons, seeds in asked if len(epsilons) == 1}
    assert bars == {(1,)}, asked
    captions = " ".join(c.value for c in app.caption)
    assert "one model per mechanism, seed 1" in captions, captions
    assert f"Each line is the {MEAN_WORDS}" in captions, captions
