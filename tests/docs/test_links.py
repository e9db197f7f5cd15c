"""Every relative link of the README and the docs, and every repository path they name in code,
is a file or folder the repository has."""

import pytest

from tests.docs.pages import FAMILY_PAGES, PAGES, ROOT, relative_links, repository_paths, served_at


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    missing = [
        target
        for target in relative_links(page)
        if not _exists(served_at(page).parent / target.split("#", 1)[0])
    ]
    assert not missing, missing


def _exists(target) -> bool:
    """A file of the repository, or a page the site generates from a family's folder."""
    return target.resolve().exists() or target.resolve() in {
        path.resolve() for path in FAMILY_PAGES.values()
    }


def test_the_readme_links_into_the_docs():
    links = relative_links(ROOT / "README.md")
    assert "docs/index.md" in links and "docs/interfaces.md" in links


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_repository_path_named_in_code_exists(page):
    missing = [path for path in repository_paths(page) if not (ROOT / path).exists()]
    assert not missing, missing


def test_code_spans_with_paths_are_found():
    named = repository_paths(ROOT / "docs" / "develop" / "adding-a-mechanism.md")
    assert {"labeldp_core/noise/noise_plans.py", "labeldp_core/families/family.py"} <= set(named)
