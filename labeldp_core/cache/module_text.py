"""A module's source as the code fingerprint reads it: what it imports, and its code without paths.

The fingerprint (:mod:`labeldp_core.cache.fingerprint`) must follow what code computes, not where it
lives: moving a module and rewriting the imports that name it changes no number. So a module is
read as its syntax tree, written as text without positions (the layout), comments or docstrings
(none of them computes anything), and with every name of a package module in it replaced by a
mark; the modules named are kept aside, in the order of the marks, for the fingerprint to fill in
by content. Names are found in import statements (relative ones resolved; ``from package import
submodule`` names the submodule) and as dotted names in any string: ``import_module`` with a
literal name, a string constant. A run of imports of package modules is read sorted by what they
import, since a formatter orders them by path. The text is the same on every Python version that
parses the source alike (fields a newer Python adds empty are left out).
"""

import ast
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MARK", "PACKAGE", "ModuleText", "named_imports", "read_module", "statements"]

PACKAGE = "labeldp_core"
#: What stands for a package module's name in the text hashed (no source holds a NUL byte).
MARK = "\x00"
#: A dotted name starting at the package's name (the longest part naming a module is a reference).
_DOTTED = re.compile(rf"(?<![\w.]){PACKAGE}(?:\.[A-Za-z_]\w*)*")
_IMPORT_MODULE = re.compile(r"""import_module\(\s*["'](labeldp_core[\w.]*)["']""")


@dataclass(frozen=True)
class ModuleText:
    """What the fingerprint reads of one module's source.

    Attributes:
        imports: every module name the source imports (import statements, ``import_module`` with
            a literal name), of the package or not.
        digest: sha256 of the text with each name of a package module replaced by :data:`MARK`.
        references: those package modules, in the order of their marks.
        blank: whether the source is empty (an empty ``__init__.py`` runs nothing).
    """

    imports: frozenset[str]
    digest: bytes
    references: tuple[str, ...]
    blank: bool


def statements(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement in ``body``, those nested in functions, classes and blocks too.

    Expressions are not entered (imports are statements), which makes the walk cheap.
    """
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from statements(nested)


def _base(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module a ``from ... import`` reads (relative names resolved)."""
    base = node.module or ""
    if not node.level:
        return base
    parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{parent}.{base}" if base else parent


def named_imports(tree: ast.Module, source: str, package: str) -> Iterable[str]:
    """Every module name a module's source imports (``package``: the package it sits in).

    That is ``import``, ``from ... import`` (relative names resolved; each imported name as a
    possible submodule) and ``import_module`` with a literal name.
    """
    for node in statements(tree.body):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _base(node, package)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
    yield from _IMPORT_MODULE.findall(source)


def _alias(name: str, asname: str | None, module: bool) -> str:
    """One imported name as the text hashed reads it: a module's name is a mark."""
    if module:
        return f"{MARK} as {asname or name}"
    return f"{name} as {asname}" if asname else name


def _rendered(node: ast.stmt, package: str, modules: frozenset[str]) -> tuple[str, list[str]]:
    """An import statement of package modules as the import it makes, with those modules.

    ('', []) for any other statement, an import of none of the package's modules included.
    """
    if isinstance(node, ast.Import):
        found = [alias.name for alias in node.names if alias.name in modules]
        names = [_alias(a.name, a.asname, a.name in modules) for a in node.names]
        return (f"import {', '.join(names)}" if found else "", found)
    base = _base(node, package) if isinstance(node, ast.ImportFrom) else None
    if base not in modules:
        return "", []
    subs = [f"{base}.{alias.name}" for alias in node.names]
    names = [
        _alias(a.name, a.asname, sub in modules) for a, sub in zip(node.names, subs, strict=True)
    ]
    return f"from {MARK} import {', '.join(names)}", [base, *(s for s in subs if s in modules)]


def _is_docstring(node: ast.stmt) -> bool:
    """Whether ``node`` is a string standing alone: a docstring, which computes nothing."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


class _Writer:
    """Writes a module's syntax tree as text without positions, comments, docstrings or paths.

    Each node is written as its type and its fields (those that are None or empty left out, so
    that the text does not depend on the Python version's new empty fields). Each name of a
    package module becomes :data:`MARK`, the module appended to ``references``; a run of imports
    of package modules is written sorted (a formatter sorts imports by their path).
    """

    def __init__(self, package: str, modules: frozenset[str]) -> None:
        self.package, self.modules = package, modules
        self.out: list[str] = []
        self.references: list[str] = []

    def body(self, statements: list[ast.stmt]) -> None:
        """Write a block of statements: its docstrings left out, its runs of imports sorted."""
        run: list[tuple[str, list[str]]] = []
        for node in [*statements, None]:
            rendered = ("", []) if node is None else _rendered(node, self.package, self.modules)
            if rendered[0]:
                run.append(rendered)
                continue
            for text, found in sorted(run, key=lambda pair: pair[0]):
                self.out.append(text + ";")
                self.references += found
            run = []
            if node is not None and not _is_docstring(node):
                self.node(node)

    def node(self, node: ast.AST) -> None:
        """Write one node: its type, then its fields in order (a string with its names marked)."""
        out = self.out
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(repr(self.marked(node.value)))
            return
        out.append(type(node).__name__ + "(")
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast.AST):
                out.append(field + "=")
                self.node(value)
                out.append(",")
            elif isinstance(value, list) and value:
                out.append(field + "=[")
                self.items(value)
                out.append("],")
            elif value is not None and value != []:  # no empty field: a newer Python adds some
                out.append(f"{field}={value!r},")
        out.append(")")

    def items(self, values: list) -> None:
        """Write a field's list: a block of statements, or nodes, names and None one by one."""
        if isinstance(values[0], ast.stmt):
            self.body(values)
            return
        for value in values:
            if isinstance(value, ast.AST):
                self.node(value)
            else:
                self.out.append(repr(value))
            self.out.append(",")

    def marked(self, text: str) -> str:
        """``text`` with the longest module of each dotted package name in it made a mark."""
        pieces, at = [], 0
        for match in _DOTTED.finditer(text):
            name = match[0]
            while name not in self.modules and "." in name:
                name = name.rpartition(".")[0]
            if name in self.modules:
                pieces += [text[at : match.start()], MARK]
                self.references.append(name)
                at = match.start() + len(name)
        return "".join([*pieces, text[at:]])


@lru_cache(maxsize=1024)
def read_module(name: str, is_package: bool, source: bytes, modules: frozenset[str]) -> ModuleText:
    """What the fingerprint reads of module ``name``'s ``source``.

    ``modules`` is every module of the package (a name is a reference only if it is one of them).
    Cached by content, so an edited file is read again.
    """
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    writer = _Writer(package, modules)
    writer.body(tree.body)
    return ModuleText(
        imports=frozenset(named_imports(tree, source.decode(), package)),
        digest=hashlib.sha256("".join(writer.out).encode()).digest(),
        references=tuple(writer.references),
        blank=not writer.out,
    )
