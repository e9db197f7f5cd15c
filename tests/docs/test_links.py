"""Every relative link of the README and the docs names a file the repository has."""

import pytest

from tests.docs.pages import PAGES, ROOT, relative_links


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    missing = [
        target
        for target in relative_links(page)
        if not (page.parent / target.split("#", 1)[0]).resolve().exists()
    ]
    assert not missing, missing


def test_the_readme_links_into_the_docs():
    links = relative_links(ROOT / "README.md")
    assert "docs/index.md" in links and "docs/interfaces.md" in links
