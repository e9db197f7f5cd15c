"""The code that computes a cached entry, read from the imports, and its fingerprint.

A cache key carries the fingerprint of the code that computes its entry, so that an edit
invalidates what it can change and nothing else: a fix in one family leaves every other family's
points readable. That code is named by a *unit*, one or more roots joined by ``+``:

- ``family:<id>``: the family's folder (every module but its plots) and the engine that stores a
  run's result (:data:`RESULT_ENGINE`); a run result's unit.
- a dotted module name (``labeldp_core.engine.context``): an artefact computed there, such as a
  clean baseline shared by every family.
- ``family:*``: every family, for an entry that names no code of its own.

The unit's code is its roots and every module of this package they import, transitively, read
from the source with :mod:`ast` (not a hand list: a family that starts to use a shared module is
covered by it at once). Imports inside functions and under ``TYPE_CHECKING`` count (lazy imports
are still run), as do ``import_module("labeldp_core....")`` calls and the packages a module sits
in (importing it runs their ``__init__``). Three kinds of module never count: figures (a module or
package named ``plots`` or ``plots_base``, the base they are drawn with; pages, the app and the docs are outside the package), the
registry, the table of every family (a point reaches its own family through it, and that family is
a root already), and the key machinery, the package this module sits in (:mod:`labeldp_core.cache`:
this module, :mod:`~labeldp_core.cache.module_text` and the store).

The key machinery computes no entry, so an entry's key does not name its code, and an upgrade that
moves or edits it keeps every stored result. What it can change is a key, or the bytes that stand
for an entry's value, and neither can serve a stale number. A change to what a key hashes (the
identity's fields, how a module is read, which modules count, how colours are joined) changes the
keys by itself, and a change that leaves every key as it was is, by the key's own definition, one
under which the stored entries are still what their keys name. The store keeps the bytes a
computation gave it and hands them back: an entry written in a format the store no longer reads
fails its tag or its decoding, and is dropped and recomputed. The one change that would need the
old entries gone, a fix of a value the store wrote wrongly, bumps the package version, which every
key holds.

The fingerprint follows what the code computes, not where it lives, so that moving a module (and
rewriting the imports that name it) keeps every stored point. Each module is read as its syntax
tree without comments, docstrings, layout or module paths
(:mod:`labeldp_core.cache.module_text`): each name of a package module in it is a mark. A module's *colour* is that text's digest with each mark
filled by the named module's colour, found by colour refinement over the unit's code (no
recursion, so import cycles are no trouble; a module outside the unit, such as the registry, is one
placeholder): a module that takes a name from another module with another body has another
colour. The fingerprint is the digest of the set of the unit's colours, in sorted order; a module
that runs nothing (an ``__init__`` of only a docstring) adds none. What a moved module's unit is
*named* by is another matter: a unit named by a module (``labeldp_core.engine.context``) is
another unit once that module moves, and its entries are computed again. A unit's fingerprint is
computed once per process (the app asks often).
"""

import hashlib
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from labeldp_core.cache.module_text import PACKAGE, ModuleText, read_module

__all__ = [
    "EVERY_FAMILY",
    "PACKAGE_DIR",
    "RESULT_ENGINE",
    "declared_unit",
    "family_unit",
    "import_closure",
    "joined",
    "unit_code",
    "unit_family",
    "unit_fingerprint",
    "unit_of_code",
]

#: The source folder read, the package's (a test points it at a copy of the package, edited).
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: The registered families that live in the package (not a test's toy family).
_OWN_FAMILIES = PACKAGE_DIR / "families"
#: The engine that turns a family's outcome into the stored result: a root of every family unit.
RESULT_ENGINE = "labeldp_core.experiments.runner"
#: The unit of an entry that names no code of its own: every family.
EVERY_FAMILY = "family:*"
_FAMILY = "family:"
#: Name parts of modules that draw figures and compute nothing.
_FIGURES = frozenset({"plots", "plots_base"})
#: The table of every family (see the module's docstring).
_REGISTRY = "labeldp_core.registry"
#: The key machinery: the package this module sits in, which computes no entry (module doc).
_KEYS = __name__.rpartition(".")[0]
_FAMILY_ID = re.compile(r"[a-z_][a-z0-9_]*")
_CODE = re.compile(r"(?P<unit>[^@]{1,2000})@(?P<digest>[0-9a-f]{16})")
#: The colour of a module outside a unit's code, wherever a module of the code names it.
_OUTSIDE = hashlib.sha256(b"outside the unit's code").digest()


def _name(path: Path, root: Path) -> str:
    """The module name of the source file ``path`` in the package folder ``root``."""
    return ".".join((PACKAGE, *path.relative_to(root).with_suffix("").parts)).removesuffix(
        ".__init__"
    )


@cache
def _files(root: Path) -> dict[str, Path]:
    """Every module of the package folder ``root``: its file, by name. Read once per process.

    A package's ``__init__.py`` wins over a module file of the same name, as it does in Python.
    """
    paths = (path for path in root.rglob("*.py") if "__pycache__" not in path.parts)
    ordered = sorted(paths, key=lambda path: (path.name == "__init__.py", path))
    return {_name(path, root): path for path in ordered}


@cache
def _modules(root: Path) -> frozenset[str]:
    """Every module of the package folder ``root``, by name."""
    return frozenset(_files(root))


def _source(name: str, root: Path) -> Path | None:
    """The file of module ``name`` under the package folder ``root``, or None."""
    return _files(root).get(name)


def _counts(name: str) -> bool:
    """Whether module ``name`` can compute an entry (not a figure, the registry or the keys)."""
    keys = name == _KEYS or name.startswith(f"{_KEYS}.")
    return name != _REGISTRY and not keys and not _FIGURES.intersection(name.split("."))


def _read(name: str, root: Path) -> ModuleText:
    """What the fingerprint reads of module ``name`` under ``root`` (its file read now)."""
    path = _source(name, root)
    return read_module(name, path.name == "__init__.py", path.read_bytes(), _modules(root))


@cache
def _imports(name: str, root: Path) -> frozenset[str]:
    """The package's modules that importing ``name`` runs directly (parents included)."""
    if _source(name, root) is None:
        return frozenset()
    parts = name.split(".")
    found = {".".join(parts[:end]) for end in range(1, len(parts))} | _read(name, root).imports
    return frozenset(m for m in found if m.startswith(PACKAGE) and _counts(m) and _source(m, root))


def import_closure(roots: Iterable[str], root: Path) -> frozenset[str]:
    """``roots`` and every module of the package they import, transitively (see the module doc)."""
    seen: set[str] = set()
    todo = [name for name in roots if _counts(name)]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(name, root) - seen)
    return frozenset(seen)


def _family_roots(family: str, root: Path) -> list[str]:
    """The modules of family ``family``'s folder (its plots left out) and the result engine."""
    if family == "*":
        folders = sorted(p for p in (root / "families").iterdir() if (p / "__init__.py").is_file())
    elif _FAMILY_ID.fullmatch(family) and (root / "families" / family / "__init__.py").is_file():
        folders = [root / "families" / family]
    else:
        raise ValueError(f"no family folder named {family!r}")
    modules = [
        f"{PACKAGE}.families.{folder.name}.{path.stem}".removesuffix(".__init__")
        for folder in folders
        for path in sorted(folder.glob("*.py"))
    ]
    return [*modules, RESULT_ENGINE]


def _roots(unit: str, root: Path) -> list[str]:
    """The root modules ``unit`` names.

    Raises:
        ValueError: if a part of ``unit`` is neither a family folder nor a module of the package.
    """
    roots = []
    for part in unit.split("+"):
        if part.startswith(_FAMILY):
            roots += _family_roots(part.removeprefix(_FAMILY), root)
        elif _source(part, root) is not None:
            roots.append(part)
        else:
            raise ValueError(f"{part!r} is neither a family nor a module of {PACKAGE}")
    return roots


def unit_fingerprint(unit: str) -> str:
    """A digest of the source of every module of ``unit``'s code (16 hex digits).

    Read from :data:`PACKAGE_DIR`, once per process and unit.

    Raises:
        ValueError: if ``unit`` names no code of the package.
    """
    return _fingerprint(unit, PACKAGE_DIR)


@cache
def _fingerprint(unit: str, root: Path) -> str:
    code = {name: _read(name, root) for name in import_closure(_roots(unit, root), root)}
    colours = _colours(code)
    pieces = sorted({colours[name] for name, text in code.items() if not text.blank})
    return hashlib.sha256(b"".join(pieces)).hexdigest()[:16]


def _colours(code: dict[str, ModuleText]) -> dict[str, bytes]:
    """Each module's digest by content: its text with every module it names filled in by theirs.

    Colour refinement: a module's first colour is its own text's digest; each round hashes that
    with the colours of the modules it names, in order (a module outside ``code``, such as the
    registry or a figure, is :data:`_OUTSIDE`). A round that tells no two more modules apart ends
    it: the colours then say, for the graph of names, which module each name reaches, however
    deep, with no path in them (cycles are no trouble).
    """
    colours = {name: text.digest for name, text in code.items()}
    kinds = len(set(colours.values()))
    while True:
        colours = {
            name: hashlib.sha256(
                b"".join([text.digest, *(colours.get(m, _OUTSIDE) for m in text.references)])
            ).digest()
            for name, text in code.items()
        }
        if len(set(colours.values())) == kinds:
            return colours
        kinds = len(set(colours.values()))


def unit_code(unit: str) -> str:
    """What a key of ``unit`` records as its code: ``<unit>@<fingerprint>``."""
    return f"{unit}@{unit_fingerprint(unit)}"


def unit_of_code(code: object) -> str | None:
    """The unit a key's recorded code names, or None if it is not one :func:`unit_code` makes."""
    match = _CODE.fullmatch(code) if isinstance(code, str) else None
    return None if match is None else match["unit"]


def joined(*units: str) -> str:
    """One unit made of ``units``' roots (an audit of a family: the family and the audit)."""
    return "+".join(units)


def family_unit(family: str) -> str:
    """The unit of a family's run results, by the family's id (its folder's name)."""
    return f"{_FAMILY}{family}"


def declared_unit(family: str, folder: Path) -> str:
    """The unit of the run results of the family ``family`` declared in ``folder``.

    A family registered from outside the package (a test's toy family) has no folder here, so its
    entries take every family's code.
    """
    inside = folder.resolve().parent == _OWN_FAMILIES
    return family_unit(family) if inside else EVERY_FAMILY


def unit_family(unit: str) -> str:
    """The family whose code a unit is, for the cache's statistics; ``shared`` for shared code.

    ``family:<id>`` (first part of a joined unit) or a module inside a family folder name that
    family; ``family:*`` and modules below the families are ``shared``.
    """
    first = unit.split("+")[0]
    if first.startswith(_FAMILY) and first != EVERY_FAMILY:
        return first.removeprefix(_FAMILY)
    parts = first.split(".")
    return parts[2] if parts[:2] == [PACKAGE, "families"] and len(parts) > 2 else "shared"
