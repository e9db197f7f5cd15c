"""MkDocs hook: the mechanism pages, table and navigation, generated from the registered families.

The prose of each family lives in its folder, ``labeldp_core/families/<family>/README.md``; the
site serves it as ``mechanisms/<family>.md`` (with ``-`` for ``_``) and lists it under
*Mechanisms* in the navigation, so a new family's page needs no edit here or in ``mkdocs.yml``.
The marker ``<!-- mechanisms -->`` on such a page becomes its mechanisms (id, title, summary,
privacy unit, settings with defaults) and the published figures ``reproduce`` sets beside ours.
The marker ``<!-- mechanism table -->`` becomes the table of every mechanism. The registry is read
in :func:`families` only.
"""

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `mkdocs build` runs from its own script, not the checkout
    sys.path.insert(0, str(ROOT))

TABLE_MARKER = "<!-- mechanism table -->"
IDS_MARKER = "<!-- mechanism ids -->"
FAMILY_MARKER = "<!-- mechanisms -->"


@dataclass(frozen=True)
class Family:
    """A family's page (``mechanisms/<page>.md``), title, mechanisms' specs and prose file."""

    page: str
    title: str
    mechanisms: tuple[Any, ...]
    prose: Path

    @property
    def src_uri(self) -> str:
        """Where the site serves the family's page."""
        return f"mechanisms/{self.page}.md"


def families() -> list[Family]:
    """Every registered family, by its page: the one place the docs read the registry."""
    from labeldp_core.registry import FAMILIES

    return [
        Family(
            family.id.replace("_", "-"),
            family.title,
            tuple(mechanism.spec for mechanism in family.mechanisms),
            family.folder / "README.md",
        )
        for family in FAMILIES
    ]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def mechanism_table(found: list[Family]) -> str:
    """One row per mechanism: id, title, summary, privacy unit, task and its family's page."""
    rows = ["| id | mechanism | what it does | privacy unit | task | family |", "| --- " * 6 + "|"]
    for family in found:
        for spec in family.mechanisms:
            rows.append(
                f"| `{spec.id}` | {_cell(spec.title)} | {_cell(spec.summary)} | "
                f"{spec.privacy_unit} | {spec.task} | [{family.title}]({family.page}.md) |"
            )
    return "\n".join(rows)


def _allowed(setting: Any) -> str:
    if setting.choices:
        return ", ".join(f"`{choice}`" for choice in setting.choices)
    low = "" if setting.minimum is None else f"≥ {setting.minimum:g}"
    high = "" if setting.maximum is None else f"≤ {setting.maximum:g}"
    return ", ".join(part for part in (low, high) if part) or "any"


def settings_table(spec: Any) -> str:
    """The mechanism's own ``--set KEY=VALUE`` settings with their defaults and ranges."""
    rows = ["| setting | default | allowed | what it sets |", "| --- " * 4 + "|"]
    for name, setting in spec.settings.items():
        rows.append(
            f"| `{name}` | `{setting.default}` | {_allowed(setting)} | {_cell(setting.help)} |"
        )
    return "\n".join(rows)


def _mechanism_section(spec: Any) -> str:
    common = (
        " It also takes the [common training settings](../command-line.md#training-settings)."
        if spec.trains_model
        else ""
    )
    return (
        f"### `{spec.id}`: {spec.title}\n\n{spec.summary}.\n\n"
        f"Privacy unit: **{spec.privacy_unit}**; task: {spec.task}.{common}\n\n"
        f"{settings_table(spec)}\n"
    )


#: Set (by `make docs`) to read our side of the papers' figures from this machine's cache. Making
#: the papers' configs loads their datasets (seconds), so the strict build of `make test` does not.
OURS_VARIABLE = "LABELDP_DOCS_OURS"


@functools.cache
def _paper_rows() -> tuple[dict[str, Any], ...]:
    """``reproduce``'s rows: each published figure, and ours when :data:`OURS_VARIABLE` is set."""
    from labeldp_core.services.reproduce import paper_rows, published_figures

    # Rows whose runs use another dataset than the paper's compare gains only: the Papers page
    # and `reproduce` show them; this table sets accuracies side by side, so it leaves them out.
    if os.environ.get(OURS_VARIABLE, "") not in ("", "0"):
        return tuple(
            row for row in paper_rows() if row.get("our_dataset", row["dataset"]) == row["dataset"]
        )
    return tuple(
        {
            "paper": figure.paper,
            "where": figure.where,
            "dataset": figure.dataset,
            "model": figure.model,
            "epsilon": figure.epsilon,
            "delta": figure.delta,
            "theirs": figure.value,
            "their_clean": figure.clean_value,
            "our_mechanism": figure.ours["mechanism"],
            "computed_seeds": None,
        }
        for figure in published_figures()
        if figure.same_dataset
    )


def _ours(row: dict[str, Any]) -> str:
    if row["computed_seeds"] is None:
        return f"not read by this build (`make docs` reads the cache; {OURS_VARIABLE}=1)"
    if not row["computed_seeds"]:
        return "not computed here"
    spread = f"{row['ours_min']:.3f} to {row['ours_max']:.3f}"
    return (
        f"{row['ours']:.3f} ({row['computed_seeds']} seeds: {spread}; clean {row['our_clean']:.3f})"
    )


def _delta(delta: float | None) -> str:
    """A published delta, or what the citation file's None means: the source states none."""
    return "not stated" if delta is None else f"{delta:g}"


def figures_table(ids: set[str]) -> str:
    """The published figures of ``ids`` beside ours, or a sentence when there are none."""
    rows = [row for row in _paper_rows() if row["our_mechanism"] in ids]
    if not rows:
        json_file = "labeldp_core/services/published_figures.json"
        return f"No published figure of this family is in `{json_file}`."
    lines = [
        "| paper | where | dataset, model | ε, δ | theirs (clean) | ours, mean over the seeds |",
        "| --- " * 6 + "|",
    ]
    for row in rows:
        clean = "" if row["their_clean"] is None else f" ({row['their_clean']:g})"
        lines.append(
            f"| {_cell(row['paper'])} | {_cell(row['where'])} | {row['dataset']}, "
            f"{_cell(row['model'])} | {row['epsilon']:g}, {_delta(row['delta'])} | "
            f"{row['theirs']:g}{clean} | `{row['our_mechanism']}`: {_ours(row)} |"
        )
    return "\n".join(lines)


def family_section(family: Family) -> str:
    """The generated part of a family's page: its mechanisms, then the papers' figures."""
    body = "\n".join(_mechanism_section(spec) for spec in family.mechanisms)
    ids = {spec.id for spec in family.mechanisms}
    return (
        f"## The mechanisms\n\n{body}\n## Our figures beside the paper's\n\n"
        "Each figure a paper published that this explorer can match, beside ours on the same "
        "dataset at the same ε over seeds 0, 1 and 2, as found in the cache of the machine that "
        "built this page, if the build read it (`python -m labeldp_core reproduce --compute` "
        "computes what the cache lacks; "
        "`reproduce` and the *Papers vs this explorer* page show the same rows):\n\n"
        f"{figures_table(ids)}\n"
    )


def mechanism_ids(found: list[Family]) -> str:
    """Every registered mechanism id, in code spans, family by family."""
    return ", ".join(f"`{spec.id}`" for family in found for spec in family.mechanisms)


def on_config(config: Any) -> Any:
    """The *Mechanisms* section of the navigation: its index, then each family's page."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Mechanisms" in entry:
            entry["Mechanisms"] = [
                "mechanisms/index.md",
                *({f.title: f.src_uri} for f in families()),
            ]
            return config
    raise PluginError("mkdocs.yml's nav has no Mechanisms section")


def on_files(files: Any, config: Any) -> Any:
    """Serve each family's prose (its folder's README.md) as its page; fail if one has none."""
    missing = [f.page for f in families() if not f.prose.is_file()]
    if missing:
        raise PluginError(f"no README.md (the family's prose) in the folders of {missing}")
    for family in families():
        content = family.prose.read_text(encoding="utf-8")
        files.append(File.generated(config, family.src_uri, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Put the generated tables where the markers are."""
    if TABLE_MARKER in markdown:
        markdown = markdown.replace(TABLE_MARKER, mechanism_table(families()))
    if IDS_MARKER in markdown:
        markdown = markdown.replace(IDS_MARKER, mechanism_ids(families()))
    if FAMILY_MARKER in markdown:
        name = Path(page.file.src_uri).stem
        found = {family.page: family for family in families()}
        if name not in found:
            raise PluginError(f"{page.file.src_uri}: {FAMILY_MARKER} on a page of no family")
        markdown = markdown.replace(FAMILY_MARKER, family_section(found[name]))
    return markdown
