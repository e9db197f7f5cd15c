"""Every mechanism page ends on its family's threat-model card; the other pages have none."""

import pytest
from app_helpers import assert_no_errors, open_page

from labeldp_core.registry import pages

EXPANDER = "What ε protects here (the threat model)"


def _cards(app) -> list[str]:
    return [e.label for e in app.expander if e.label == EXPANDER]


@pytest.mark.parametrize("page", ["pages/randomized_response.py", "pages/dpsgd.py"])
def test_a_mechanism_page_shows_what_its_epsilon_protects(page):
    app = open_page(page, epochs="1", model="logistic")
    assert_no_errors(app)
    assert _cards(app) == [EXPANDER]
    family = next(f for f, p in pages() if p.file == page)
    shown = " ".join(md.value for md in app.markdown)
    assert family.mechanisms[0].threat.protects.split("{bound}")[0] in shown
    assert "teaching run" in shown  # the default noise mode is float


def test_a_page_of_no_family_has_no_card():
    app = open_page("pages/laplace_noise.py")
    assert_no_errors(app)
    assert _cards(app) == []


def test_a_page_whose_recipe_was_tuned_on_these_labels_says_so():
    # RR-with-prior's 20 clusters on digits won a comparison of runs on digits' labels.
    app = open_page("pages/rr_prior.py", epochs="1", model="logistic")
    assert_no_errors(app)
    shown = " ".join(c.value for c in app.caption)
    assert "Tuned on these labels" in shown
    assert "clusters=20" in shown
    assert "the ε covers one run, not the search" in shown


def test_a_page_with_no_tuned_setting_has_no_tuning_note():
    app = open_page(
        "pages/randomized_response.py", dataset="mnist-5k", epochs="1", model="logistic"
    )
    assert_no_errors(app)
    assert not any("Tuned on" in c.value for c in app.caption)
