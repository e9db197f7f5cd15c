"""A key carries the fingerprint of the code that computes its entry, and of nothing else.

Each test fingerprints copies of the package (one as it is, one edited) instead of the real
files: ``fingerprint.PACKAGE_DIR`` points the reader at a copy.
"""

import ast
import importlib
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeldp_core.cache import ALL_CODE, ResultCache, fingerprint
from labeldp_core.experiments import make_config
from labeldp_core.experiments.runner import result_key
from labeldp_core.registry import FAMILIES
from labeldp_core.services.release_audits import stored_audit_case

#: One mechanism of each family, by family id.
FIRST = {family.id: family.mechanisms[0].id for family in FAMILIES}


def _copy(tmp_path: Path, name: str, edit: str | None = None) -> Path:
    """A copy of the package's source, with a line of code appended to the file ``edit``.

    A comment, a docstring or the layout is not code: the fingerprint does not read them.
    """
    root = tmp_path / name / "labeldp_core"
    shutil.copytree(fingerprint.PACKAGE_DIR, root, ignore=shutil.ignore_patterns("__pycache__"))
    if edit is not None:
        with (root / edit).open("a") as source:
            source.write("ONE_LINE_MORE = 1\n")
    return root


def _keys(root: Path, cache: ResultCache, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Each family's run result key (digits, epsilon 1), as code read from ``root`` makes it."""
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", root)
    return {
        family: result_key(cache, make_config(mechanism, "digits", 1.0))
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
        "plots_base/colours.py",
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
    assert not any(part in ("plots", "plots_base") for name in every for part in name.split("."))


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
    assert stored_under(_copy(tmp_path, "audit", "release_audit/engine.py")) != before


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
            package = importlib.import_module(source)
            # ``from package import submodule`` imports the submodule (the package may not yet)
            if not hasattr(package, name):
                importlib.import_module(f"{source}.{name}")
            served = getattr(package, name)
            home = getattr(served, "__module__", None)
            ours = isinstance(home, str) and home.startswith("labeldp_core.")
            if ours and fingerprint._counts(home) and home not in code:
                missed.add(f"{module}: {name} from {home}")
    assert not missed, sorted(missed)


def _units(root: Path) -> list[str]:
    """Every unit the cache keys entries by, as read from the package at ``root``.

    A family's results, its audit cases and its canary trainings (each family joined with the
    audit modules :data:`~labeldp_core.cache.ALL_CODE` names), every module that stores what it
    computes under its own name (``by=__name__``), every family and all the code together.
    """
    audits = ALL_CODE.split("+")[1:]
    families = [fingerprint.family_unit(family.id) for family in FAMILIES]
    own = sorted(
        ".".join(("labeldp_core", *path.relative_to(root).with_suffix("").parts))
        for path in root.rglob("*.py")
        if "by=__name__" in path.read_text(encoding="utf-8")
    )
    joined = [fingerprint.joined(family, audit) for family in families for audit in audits]
    return [*families, *joined, *own, fingerprint.EVERY_FAMILY, ALL_CODE]


def _fingerprints(root: Path, units: list[str]) -> dict[str, str]:
    """Each unit's fingerprint, read from the package at ``root``."""
    return {unit: fingerprint._fingerprint(unit, root) for unit in units}


def _move(root: Path, old: str, new: str) -> None:
    """Move module ``old`` to ``new`` (dotted names) as ``git mv`` would, and rewrite its imports.

    A new folder gets an empty ``__init__.py``. Every mention of the old name in the package's
    source (imports, ``import_module`` strings, docstrings) names the new one.
    """
    source = root.joinpath(*old.split(".")[1:]).with_suffix(".py")
    target = root.joinpath(*new.split(".")[1:]).with_suffix(".py")
    if not target.parent.is_dir():
        target.parent.mkdir()
        (target.parent / "__init__.py").touch()
    source.rename(target)
    (old_parent, old_leaf), (new_parent, new_leaf) = old.rsplit(".", 1), new.rsplit(".", 1)
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        moved = re.sub(rf"\b{re.escape(old)}\b", new, text)
        moved = moved.replace(
            f"from {old_parent} import {old_leaf}\n", f"from {new_parent} import {new_leaf}\n"
        )
        if moved != text:
            path.write_text(moved, encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "labeldp_core.base.validation",
            "labeldp_core.engine.validation",
        ),  # into a folder that exists
        ("labeldp_core.noise.noise_plans", "labeldp_core.plans.noise_plans"),  # into a new one
    ],
)
def test_moving_a_module_and_rewriting_its_imports_keeps_every_units_fingerprint(
    old: str, new: str, tmp_path: Path
):
    # A reorganisation that changes no computation (issue 55) must keep every warmed point
    # readable (issue 50): the fingerprint follows the code's content, not where it lives.
    before = _copy(tmp_path, "before")
    after = _copy(tmp_path, "after")
    _move(after, old, new)
    every = fingerprint.import_closure(fingerprint._roots(ALL_CODE, after), after)
    assert new in every and old not in every  # the moved module is code the cache keys by
    units = _units(before)
    assert len(units) > 30 and _units(after) == units
    assert _fingerprints(after, units) == _fingerprints(before, units)


#: Two pairs of modules a family's code can take ``f`` from: ``twin_a`` and ``twin_b`` differ in
#: their body, or only in the module they take ``f`` from (whose bodies differ).
TWINS = {
    "bodies": {"twin_a": "def f():\n    return 1\n", "twin_b": "def f():\n    return 2\n"},
    "imports": {
        "twin_a": "from labeldp_core.leaf_a import f\n",
        "twin_b": "from labeldp_core.leaf_b import f\n",
        "leaf_a": "def f():\n    return 1\n",
        "leaf_b": "def f():\n    return 2\n",
    },
}


def _taking(root: Path, modules: dict[str, str], first: str, second: str) -> str:
    """RR's fingerprint once its experiment takes ``f`` from ``first``, ``g`` from ``second``.

    Both modules are in its code either way: only which one gives which name tells them apart.
    """
    for name, text in modules.items():
        (root / f"{name}.py").write_text(text, encoding="utf-8")
    with (root / "families/randomized_response/experiment.py").open("a") as source:
        source.write(
            f"from labeldp_core.{first} import f\nfrom labeldp_core.{second} import f as g\n"
        )
    return fingerprint._fingerprint(fingerprint.family_unit("randomized_response"), root)


@pytest.mark.parametrize("differ", sorted(TWINS))
def test_taking_a_name_from_another_module_changes_the_fingerprint(differ: str, tmp_path: Path):
    modules = TWINS[differ]
    before = _taking(_copy(tmp_path, "before"), modules, "twin_a", "twin_b")
    assert _taking(_copy(tmp_path, "after"), modules, "twin_b", "twin_a") != before
    assert _taking(_copy(tmp_path, "again"), modules, "twin_a", "twin_b") == before


def test_a_comment_a_docstring_or_a_rewrapped_line_is_no_edit_of_the_code(tmp_path: Path):
    # None computes anything, and a move makes the formatter rewrap a line that names the
    # moved module (the cache's ALL_CODE did in the release_audit move).
    before = _copy(tmp_path, "before")
    after = _copy(tmp_path, "after")
    context = after / "engine/context.py"
    text = context.read_text(encoding="utf-8")
    assert text.startswith('"""')
    context.write_text('# a comment\n"""Reworded. ' + text.removeprefix('"""'), encoding="utf-8")
    runner = after / "experiments/runner.py"
    text = runner.read_text(encoding="utf-8")
    assert "    spec = mechanism_spec(mechanism)" in text
    rewrapped = "    spec = mechanism_spec(\n        mechanism\n    )"
    runner.write_text(text.replace("    spec = mechanism_spec(mechanism)", rewrapped), "utf-8")
    units = _units(before)
    assert _fingerprints(after, units) == _fingerprints(before, units)


@pytest.mark.parametrize(
    ("cycle_b", "same"),
    [
        ("from labeldp_core import cyc_a\n\ndef g():\n    return 1\n", True),  # absolute
        ("from . import cyc_a\n\ndef g():\n    return 2\n", False),  # another body
    ],
)
def test_an_import_cycle_and_a_relative_import_read_as_their_content(
    cycle_b: str, same: bool, tmp_path: Path
):
    # Two modules that import each other (one by a relative import): read with no recursion,
    # and the relative import is the module it names, not a path.
    a = "from labeldp_core.cyc_b import g\n\ndef f():\n    return g()\n"
    relative = "from . import cyc_a\n\ndef g():\n    return 1\n"
    prints = []
    for name, b in (("before", relative), ("after", cycle_b)):
        root = _copy(tmp_path, name)
        (root / "cyc_a.py").write_text(a, encoding="utf-8")
        (root / "cyc_b.py").write_text(b, encoding="utf-8")
        with (root / "families/randomized_response/experiment.py").open("a") as source:
            source.write("from labeldp_core.cyc_a import f\n")
        unit = fingerprint.family_unit("randomized_response")
        assert "labeldp_core.cyc_b" in fingerprint.import_closure(
            fingerprint._roots(unit, root), root
        )
        prints.append(fingerprint._fingerprint(unit, root))
    assert (prints[0] == prints[1]) is same


@pytest.mark.parametrize(
    "edit", ["cache/__init__.py", "cache/store.py", "cache/fingerprint.py", "cache/module_text.py"]
)
def test_an_edit_to_the_key_machinery_keeps_every_units_fingerprint(edit: str, tmp_path: Path):
    # The store and the fingerprint compute no entry: the package that holds them can be moved
    # or edited without throwing the users' cache away (issue 55).
    before = _copy(tmp_path, "before")
    after = _copy(tmp_path, "after", edit)
    units = _units(before)
    assert _fingerprints(after, units) == _fingerprints(before, units)
