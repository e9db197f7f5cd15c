"""Registrations a new mechanism needs that no other test would miss: the README's table (the
app's page table is checked in tests/app/test_page_table.py; the rest where they live: see
"Adding a mechanism"), and the library's tests running without Streamlit."""

import re
from pathlib import Path

from labeldp_core.experiments import MECHANISMS

ROOT = Path(__file__).resolve().parents[2]


def _mechanism_table() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Mechanisms and pages", 1)[1].split("\n\n", 2)[1]


def test_every_mechanism_is_in_the_readmes_table():
    listed = set(re.findall(r"`([a-z0-9-]+)`", _mechanism_table()))
    assert set(MECHANISMS) <= listed, sorted(set(MECHANISMS) - listed)


def test_the_librarys_own_tests_never_import_streamlit():
    # The library never imports Streamlit; neither may the tests of every folder but tests/app,
    # nor their shared fixtures, so that `pytest tests/mechanisms` tests a mechanism without the
    # app. Every such test module is imported (collected) and three run with the fixtures.
    import subprocess
    import sys

    code = (
        "import sys, pytest\n"
        "quiet = ['-q', '-p', 'no:cacheprovider']\n"
        "status = pytest.main([*quiet, '--collect-only', '--ignore=tests/app', 'tests'])\n"
        "status = status or pytest.main([*quiet, 'tests/mechanisms/test_randomized_response.py',"
        " 'tests/mechanisms/test_noise_plans.py', 'tests/accounting/test_composition.py'])\n"
        "sys.exit(status or 3 * ('streamlit' in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
