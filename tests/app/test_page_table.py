"""Every page file of the app is in app.py's page table, so the navigation reaches it."""

from pathlib import Path

from app_helpers import page_files

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_file_is_in_the_apps_page_table():
    files = {path.name for path in (ROOT / "pages").glob("*.py")}
    assert files == {Path(page).name for page in page_files()}
