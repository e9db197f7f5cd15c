"""The published figures this explorer sets beside its own, read from ``published_figures.json``.

The file groups rows in *tables* (one paper's table, or one comparison), in the order the Papers
page shows them: the closest to this explorer's models first. A table's ``defaults`` fill what its
rows leave out (the paper, the model, the training recipe...), so a table's shared facts are
written once. Every row must name its paper, where in it the number is, the model and the recipe
behind the number, and where the number was read (``quoted_from``): a figure without its setting
compares nothing. A ``delta`` of None is one the source read does not state.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FIGURES_FILE", "PaperTable", "PublishedFigure", "paper_tables", "published_figures"]

FIGURES_FILE = Path(__file__).with_name("published_figures.json")

#: The fields every row must fill, itself or through its table's defaults, with a non-empty text.
_NAMED = ("paper", "where", "model", "recipe", "method", "quoted_from")


@dataclass(frozen=True)
class PaperTable:
    """A group of published figures shown together: its title and what a reader must know."""

    id: str
    title: str
    note: str


@dataclass(frozen=True)
class PublishedFigure:
    """One figure quoted from a paper, its setting, and the run of this explorer that matches it.

    ``ours`` names our mechanism and settings (``{"mechanism": ..., "settings": {...}}``); our
    side is that run at the same dataset and epsilon.
    """

    id: str
    table: str
    paper: str
    where: str
    dataset: str
    model: str
    recipe: str
    method: str
    epsilon: float
    delta: float | None
    privacy_unit: str
    metric: str
    value: float
    clean_value: float | None
    ours: dict[str, Any]
    quoted_from: str


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def paper_tables(path: Path = FIGURES_FILE) -> list[PaperTable]:
    """The tables of the data file, in the order the page shows them."""
    return [
        PaperTable(table["id"], table["title"], table["note"]) for table in _read(path)["tables"]
    ]


def published_figures(path: Path = FIGURES_FILE) -> list[PublishedFigure]:
    """Every figure of the data file, its table's defaults filled in, checked to name its setting.

    Raises:
        ValueError: a row names no known table, repeats an id, or leaves a named field empty.
    """
    data = _read(path)
    defaults = {table["id"]: table.get("defaults", {}) for table in data["tables"]}
    figures, seen = [], set()
    for row in data["rows"]:
        if row.get("table") not in defaults:
            raise ValueError(f"{row.get('id')}: unknown table {row.get('table')!r}")
        figure = PublishedFigure(**(defaults[row["table"]] | row))
        empty = [name for name in _NAMED if not getattr(figure, name)]
        if empty or figure.id in seen:
            problem = f"names no {', '.join(empty)}" if empty else "repeats its id"
            raise ValueError(
                f"{figure.id}: every published figure must name its setting; {problem}"
            )
        seen.add(figure.id)
        figures.append(figure)
    return figures
