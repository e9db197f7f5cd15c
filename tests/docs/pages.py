"""What the docs tests read from the Markdown files: fenced blocks, the commands in them, links."""

import importlib.util
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
#: Each family's prose (its folder's README.md) and where the site serves it.
FAMILY_PAGES = {
    path: ROOT / "docs" / "mechanisms" / f"{path.parent.name.replace('_', '-')}.md"
    for path in sorted((ROOT / "labeldp_core" / "families").glob("*/README.md"))
}
#: The README and every page of the site.
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *FAMILY_PAGES)
#: The comment that must precede a shell block whose commands a test cannot run cheaply.
NOT_RUN = re.compile(r"<!-- not run: \S.*? -->\s*$")
COMMAND = "-m labeldp_core"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
#: A path of the repository in a code span: under a top-level folder, or a top-level file.
_PATH = re.compile(
    r"`((?:labeldp_core|tests|bench|pages|ui|docs|\.streamlit)/[\w./-]*"
    r"|app\.py|mkdocs\.yml|pyproject\.toml|requirements[\w.-]*\.(?:txt|lock))(?:::\w+)?`"
)


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, its text and whether a ``not run`` comment precedes it."""

    language: str
    text: str
    not_run: bool

    def commands(self) -> list[str]:
        """Its lines that call ``python -m labeldp_core``."""
        return [line for line in self.text.splitlines() if COMMAND in line]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path``, in order."""
    text = path.read_text(encoding="utf-8")
    return [
        Block(found[1], found[2], bool(NOT_RUN.search(text[: found.start()].rstrip() + "\n")))
        for found in _FENCE.finditer(text)
    ]


def argv(line: str) -> list[str]:
    """A documented command line as arguments, run by this interpreter (comments dropped)."""
    words = shlex.split(line, comments=True)
    assert words[0] in (".venv/bin/python", "python"), line
    return [sys.executable, *words[1:]]


def served_at(page: Path) -> Path:
    """Where the site serves ``page``: a family's prose under docs/mechanisms/, the rest as is."""
    return FAMILY_PAGES.get(page, page)


def relative_links(path: Path) -> list[str]:
    """The targets of the links and images of ``path`` that point into the repository."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    targets = [found[1] for found in _LINK.finditer(text)]
    return [t for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def repository_paths(path: Path) -> list[str]:
    """The repository paths that ``path`` names in code spans (placeholders such as
    ``<name>`` are not paths)."""
    return _PATH.findall(path.read_text(encoding="utf-8"))


def docs_hook() -> ModuleType:
    """docs/hooks/mechanisms.py, which writes the docs' mechanism tables from the registry."""
    return script_module("mechanisms_hook", ROOT / "docs/hooks/mechanisms.py")


def script_module(name: str, path: Path) -> ModuleType:
    """The module of a script outside the package (a docs hook, a bench script), loaded."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
