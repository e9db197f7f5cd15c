"""Registrations a new mechanism or page needs that no other test would miss: the README's table
and the app's page table. (The rest are caught where they live: see "Adding a mechanism".)"""

import re
from pathlib import Path

from app_helpers import page_files

from labeldp_core.experiments import MECHANISMS

ROOT = Path(__file__).resolve().parents[1]


def _mechanism_table() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Mechanisms and pages", 1)[1].split("\n\n", 2)[1]


def test_every_mechanism_is_in_the_readmes_table():
    listed = set(re.findall(r"`([a-z0-9-]+)`", _mechanism_table()))
    assert set(MECHANISMS) <= listed, sorted(set(MECHANISMS) - listed)


def test_every_page_file_is_in_the_apps_page_table():
    files = {path.name for path in (ROOT / "pages").glob("*.py")}
    assert files == {Path(page).name for page in page_files()}


def test_the_librarys_own_tests_never_import_streamlit():
    # The library never imports Streamlit; neither may its tests' shared fixtures, so that a
    # change to a mechanism can be tested without the app.
    import subprocess
    import sys

    code = (
        "import sys, pytest\n"
        "status = pytest.main(['-q', '-p', 'no:cacheprovider', 'tests/test_randomized_response.py',"
        " 'tests/test_noise_plans.py', 'tests/test_composition.py'])\n"
        "sys.exit(status or 3 * ('streamlit' in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
