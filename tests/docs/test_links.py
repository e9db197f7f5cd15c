"""Every relative link of the README and the docs, and every repository path they name in code,
is a file or folder the repository has."""

import pytest

from tests.docs.pages import PAGES, ROOT, relative_links, repository_paths


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


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_repository_path_named_in_code_exists(page):
    missing = [path for path in repository_paths(page) if not (ROOT / path).exists()]
    assert not missing, missing


def test_code_spans_with_paths_are_found():
    named = repository_paths(ROOT / "docs" / "develop" / "adding-a-mechanism.md")
    assert "labeldp_core/experiments/registry.py" in named and "pyproject.toml" in named
