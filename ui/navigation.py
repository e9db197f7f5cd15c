"""The app's pages in sections: each family's page from the registry, then the pages no family owns.

The app builds its navigation from :func:`page_table`, and the app tests read the same table, so a
family registered in :mod:`labeldp_core.registry` appears in the navigation with no other edit.
"""

from collections.abc import Collection
from typing import NamedTuple
from urllib.parse import unquote, urlparse

from labeldp_core.registry import pages

__all__ = ["MECHANISMS_SECTION", "OTHER_PAGES", "PageEntry", "page_table", "unknown_address"]


class PageEntry(NamedTuple):
    """One page of the navigation: its section, its script, its title and its Material icon.

    The page's address is its script's file name without ``.py``: the name Streamlit announces for
    the files in ``pages/`` before ``app.py`` has run, so a direct link to a freshly started server
    never flashes "Page not found".
    """

    section: str
    file: str
    title: str
    icon: str


MECHANISMS_SECTION = "Mechanisms"
#: The pages that compose or explain every mechanism, by section, after the families' pages.
OTHER_PAGES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "Understand": (
        ("pages/laplace_noise.py", "Laplace noise", "show_chart"),
        ("pages/epsilon_meaning.py", "What ε means", "psychology"),
        ("pages/play.py", "Class round", "smartphone"),
        ("pages/price_of_privacy.py", "The price of privacy", "play_circle"),
        ("pages/audit.py", "Privacy audit", "fact_check"),
        ("pages/papers.py", "Papers vs this explorer", "menu_book"),
    ),
    "Decide": (
        ("pages/compare.py", "Compare mechanisms", "compare_arrows"),
        ("pages/choose_epsilon.py", "Choose ε", "tune"),
        ("pages/your_data.py", "Your data", "upload_file"),
    ),
}


def page_table() -> list[PageEntry]:
    """Every page after the home page: the families' pages (in registration order), the rest."""
    entries = [
        PageEntry(MECHANISMS_SECTION, page.file, page.title, page.icon) for _, page in pages()
    ]
    for section, rows in OTHER_PAGES.items():
        entries += [PageEntry(section, *row) for row in rows]
    return entries


def unknown_address(url: str | None, base: str, known: Collection[str]) -> str | None:
    """The page address asked for in ``url`` when no page has it, else None.

    Streamlit then opens the home page and rewrites the address bar to it, so the home page
    says which address was not found (shortened to 60 characters).

    Args:
        url: the address the browser asked for (``st.context.url``), None if not known.
        base: the server's ``server.baseUrlPath`` ("" when served at the root).
        known: every page's address (a page's url path; "" is the home page).

    >>> unknown_address("http://h:8501/lab/nope", "lab", {"", "compare"})
    'nope'
    >>> unknown_address("http://h:8501/compare", "", {"", "compare"}) is None
    True
    """
    if not url:
        return None
    path = unquote(urlparse(url).path).strip("/")
    prefix = base.strip("/")
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix) :].strip("/")
    if path in known:
        return None
    return path if len(path) <= 60 else path[:59] + "…"
