"""One sentence, one source: how an example-level guarantee reads for a changed label."""

import re
from pathlib import Path

import pytest

from labeldp_core.accounting.units import EXAMPLE_TO_LABEL, label_guarantee_of_example
from labeldp_core.plots_base.common import UNIT_SCALE_NOTE

ROOT = Path(__file__).resolve().parents[2]


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text())


def test_the_docs_and_the_pages_use_the_one_sentence():
    assert EXAMPLE_TO_LABEL in _text(ROOT / "docs" / "privacy.md")
    assert EXAMPLE_TO_LABEL in UNIT_SCALE_NOTE
    assert "EXAMPLE_TO_LABEL" in (ROOT / "pages" / "dpsgd.py").read_text()


def test_no_text_says_an_approximate_guarantee_only_costs_2_epsilon():
    # "only promises 2ε" is true for pure DP only; for (ε, δ)-DP the δ grows to (1 + e^ε)δ.
    sources = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("pages/*.py")]
    sources += ROOT.glob("labeldp_core/**/*.py")
    offending = [p.name for p in sources if "only promises 2ε" in _text(p)]
    assert not offending


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-5), (3.0, 0.0), (0.1, 1e-8)])
def test_the_translation_is_group_privacy_for_two_steps(epsilon, delta):
    assert label_guarantee_of_example(epsilon, delta) == pytest.approx(
        (2 * epsilon, delta + 2.718281828459045**epsilon * delta)
    )
