"""docs/demo.md's price-of-privacy minute gives each guess with its prior (issues 49 and 53)."""

from tests.docs.pages import ROOT

PAGE = (ROOT / "docs" / "demo.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return PAGE.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_price_of_privacy_guess_names_the_image_prior_and_the_uniform_one():
    # It said "the best guess e^ε/(e^ε + K − 1) against the blind 1/K": the uniform prior's
    # bound, as if the attacker had not seen the public image.
    text = " ".join(_section("The price of privacy in one minute").split())
    assert "from the image's prior π, at most πe^ε/(πe^ε + 1 − π)" in text
    assert "from the uniform prior 1/K of an attacker who never sees the image" in text
    assert "against the blind 1/K" not in text
