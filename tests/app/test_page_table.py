"""Every page file of the app is in app.py's page table, so the navigation reaches it."""

from pathlib import Path

from app_helpers import page_files

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_file_is_in_the_apps_page_table():
    files = {path.name for path in (ROOT / "pages").glob("*.py")}
    assert files == {Path(page).name for page in page_files()}


def test_a_family_found_in_its_folder_joins_the_navigation_and_leaves_with_it(toy_family):
    from labeldp_core.registry import discovered_again
    from ui.navigation import MECHANISMS_SECTION, page_table

    entry = (MECHANISMS_SECTION, "pages/toy_coin.py", "Toy coins", "toys")
    before = page_table()
    with discovered_again():
        found = page_table()
    assert [e for e in found if e != entry] == before  # the other pages keep their places
    mechanisms = [e for e in found if e.section == MECHANISMS_SECTION]
    assert mechanisms[-1] == entry  # it declares no order: the last family's page
    assert entry not in page_table()
