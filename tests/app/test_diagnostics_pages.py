"""Pages say which figures are diagnostics, what an imbalanced DPPL run covers, and PATE's scope."""

import pytest
from app_helpers import assert_no_errors, open_page

DIAGNOSTIC_PAGES = [
    "pages/randomized_response.py",
    "pages/rr_prior.py",
    "pages/laplace_labels.py",
    "pages/noisy_outputs.py",
    "pages/dppl.py",
]


def _captions(app) -> list[str]:
    return [c.value for c in app.caption]


@pytest.mark.parametrize("page", DIAGNOSTIC_PAGES)
def test_pages_mark_statistics_of_private_labels_as_diagnostics(instant_training, page):
    app = open_page(page, epochs="1", model="logistic")
    assert_no_errors(app)
    for button in app.button:  # compute what the page would otherwise only offer
        if button.key and ("run" in button.key or "compute" in button.key):
            button.click().run()
            break
    assert_no_errors(app)
    notes = [c for c in _captions(app) if c.startswith("Diagnostics, not private")]
    assert notes, page
    assert "not cover them" in notes[0]


def test_dppl_page_says_an_imbalanced_run_covers_its_subsample_only(instant_training):
    app = open_page("pages/dppl.py", epochs="1", model="mlp", dppl_imbalance="10")
    assert_no_errors(app)
    assert any("subsample of the private part" in c for c in _captions(app))
    assert app.radio(key="dppl_x").value == "ε spent"  # the default axis is what was spent


def test_pate_page_labels_the_answered_only_curve_with_its_scope(instant_training):
    app = open_page(
        "pages/pate.py",
        epochs="1",
        teachers="5",
        queries="25",
        teacher_epochs="1",
        aggregator="confident-gnmax",
    )
    assert_no_errors(app)
    assert any("filter whose budget is fixed before any query" in c for c in _captions(app))
