"""Registrations a new mechanism needs that no other test would miss: its family in the docs
(the app's page table is checked in tests/app/test_page_table.py; the rest where they live: see
docs/develop/adding-a-mechanism.md), and the library's tests running without Streamlit."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from labeldp_core.experiments import MECHANISMS
from tests.docs.pages import docs_hook

ROOT = Path(__file__).resolve().parents[2]


def test_every_mechanism_is_in_the_docs_table():
    hook = docs_hook()
    table = hook.mechanism_table(hook.families())
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", table, flags=re.MULTILINE))
    assert listed == set(MECHANISMS), sorted(set(MECHANISMS) ^ listed)
    assert hook.TABLE_MARKER in (ROOT / "docs/mechanisms/index.md").read_text(encoding="utf-8")


def test_every_family_has_a_prose_page_with_its_generated_settings():
    hook = docs_hook()
    for family in hook.families():
        page = family.prose.read_text(encoding="utf-8")
        assert hook.FAMILY_MARKER in page and "Proof sketch" in page, family.page
        section = hook.family_section(family)
        for spec in family.mechanisms:
            assert f"### `{spec.id}`" in section
            assert all(
                f"| `{name}` | `{s.default}` |" in section for name, s in spec.settings.items()
            )


#: What the tests outside tests/app may not import: Streamlit, and the app that imports it.
APP_MODULES = {"streamlit", "ui", "pages", "app", "app_helpers", "app_sessions"}


def _imported(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, wherever in the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_librarys_own_tests_never_import_streamlit():
    # The library never imports Streamlit; neither may the tests of every folder but tests/app,
    # nor their shared fixtures, so that `pytest tests/families` tests a mechanism without the
    # app. The tests' own imports are read from their source; the library's, which could reach
    # Streamlit through another package, by importing every module in a fresh interpreter.
    tests = [path for path in (ROOT / "tests").rglob("*.py") if "app" not in path.parts[-2:-1]]
    assert len(tests) > 50 and ROOT / "tests" / "conftest.py" in tests
    found = {str(path.relative_to(ROOT)): _imported(path) & APP_MODULES for path in tests}
    offenders = {path: names for path, names in found.items() if names}
    assert not offenders, offenders
    code = (
        "import importlib, pkgutil, sys, labeldp_core\n"
        "for found in pkgutil.walk_packages(labeldp_core.__path__, 'labeldp_core.'):\n"
        "    importlib.import_module(found.name)\n"
        "sys.exit(3 * ('streamlit' in sys.modules) or 4 * ('labeldp_core.cluster.worker' not in "
        "sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
