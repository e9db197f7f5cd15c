"""A key carries the fingerprint of the code that computes its entry, and of nothing else.

Each test fingerprints copies of the package (one as it is, one edited) instead of the real
files: ``fingerprint.PACKAGE_DIR`` points the reader at a copy.
"""

import ast
import importlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeldp_core import fingerprint
from labeldp_core.audit.suite import stored_audit_case
from labeldp_core.cache import ResultCache
from labeldp_core.experiments import make_config
from labeldp_core.registry import FAMILIES

#: One mechanism of each family, by family id.
FIRST = {family.id: family.mechanisms[0].id for family in FAMILIES}


def _copy(tmp_path: Path, name: str, edit: str | None = None) -> Path:
    """A copy of the package's source, with a comment line appended to the file ``edit``."""
    root = tmp_path / name / "labeldp_core"
    shutil.copytree(fingerprint.PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    if edit is not None:
        with (root / edit).open("a") as source:
            source.write("# one line more\n")
    return root


def _keys(root: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Each family's run result key (digits, epsilon 1), as code read from ``root`` makes it."""
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", root)
    return {
        family: cache.key("result", make_config(mechanism, "digits", 1.0).to_dict())
        for family, mechanism in FIRST.items()
    }


def _missed(edit: str, tmp_path: Path, cache: ResultCache, monkeypatch) -> set[str]:
    """The families whose points an edit of ``edit`` (a path in the package) makes unreadable."""
    before = _keys(_copy(tmp_path, "before"), cache, monkeypatch)
    after = _keys(_copy(tmp_path, "after", edit), cache, monkeypatch)
    return {family for family in FIRST if before[family] != after[family]}


@pytest.mark.parametrize("family", ["pate", "vector_rr", "labeldp_pro", "randomized_response"])
def test_an_edit_to_one_familys_experiment_misses_its_points_and_hits_every_other_familys(
    family: str, tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
):
    edit = f"families/{family}/experiment.py"
    assert _missed(edit, tmp_path, cache, monkeypatch) == {family}


def test_an_edit_to_a_module_two_families_import_misses_both(
    tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
):
    edit = "noise/randomized_response.py"  # RR's release; LP-2ST's first stage imports it
    assert _missed(edit, tmp_path, cache, monkeypatch) == {"randomized_response", "rr_prior"}
    assert _missed("engine/context.py", tmp_path / "shared", cache, monkeypatch) == set(FIRST)


@pytest.mark.parametrize(
    "edit",
    [
        "families/vector_rr/plots.py",
        "plots/compare.py",
        "plots/colours.py",
        "registry.py",  # a family registered is no change to the others
        "services/reports.py",
    ],
)
def test_an_edit_to_a_plots_module_or_the_registry_misses_none(
    edit: str, tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
):
    assert _missed(edit, tmp_path, cache, monkeypatch) == set()


def test_no_unit_reads_a_page_the_app_or_the_docs():
    root = fingerprint.PACKAGE_DIR
    every = fingerprint.import_closure(
        fingerprint._roots(fingerprint.joined(fingerprint.EVERY_FAMILY, "labeldp_core"), root),
        root,
    )
    assert every and all(name.startswith("labeldp_core") for name in every)
    assert not any(part in ("plots", "plotting") for name in every for part in name.split("."))


def test_an_audit_case_keys_its_familys_code_and_the_audits(
    tmp_path: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch
):
    def stored_under(root: Path) -> set[str]:
        monkeypatch.setattr(fingerprint, "PACKAGE_DIR", root)
        store = ResultCache(root.parent / "cache")
        stored_audit_case("rr", 1.0, 0, trials=200, cache=store)
        return set(store.stored_keys())

    before = stored_under(_copy(tmp_path, "before"))
    assert stored_under(_copy(tmp_path, "pate", "families/pate/experiment.py")) == before
    assert stored_under(_copy(tmp_path, "rr", "families/randomized_response/audit.py")) != before
    assert stored_under(_copy(tmp_path, "audit", "engine/audit.py")) != before


def _names_imported(module: str) -> Iterator[tuple[str, str]]:
    """Each ``from <package module> import <name>`` of ``module``'s source: (module, name)."""
    path = Path(importlib.import_module(module).__file__)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            if base.startswith("labeldp_core"):
                yield from ((base, alias.name) for alias in node.names)


@pytest.mark.parametrize("family", [family.id for family in FAMILIES])
def test_every_name_a_familys_code_imports_is_defined_in_its_fingerprinted_code(family):
    # A moved module must still count for the families that import it (issue 55): a name served
    # from elsewhere (labeldp_core.accounting's PATE names, labeldp_core.mechanisms' release
    # names) is defined in another module, which must then be among the family's code too.
    root = fingerprint.PACKAGE_DIR
    code = fingerprint.import_closure(
        fingerprint._roots(fingerprint.family_unit(family), root), root
    )
    assert f"labeldp_core.families.{family}" in code
    missed = set()
    for module in sorted(code):
        for source, name in _names_imported(module):
            home = getattr(getattr(importlib.import_module(source), name), "__module__", None)
            ours = isinstance(home, str) and home.startswith("labeldp_core.")
            if ours and fingerprint._counts(home) and home not in code:
                missed.add(f"{module}: {name} from {home}")
    assert not missed, sorted(missed)
