"""The published figures this explorer sets beside its own, read from ``published_figures.json``.

The file groups rows in *tables* (one paper's table, or one comparison), in the order the Papers
page shows them: the closest to this explorer's models first. A table's ``defaults`` fill what its
rows leave out (the paper, the model, the training recipe...), so a table's shared facts are
written once. Every row must name its paper, where in it the number is, the model and the recipe
behind the number, and where the number was read (``quoted_from``): a figure without its setting
compares nothing. A ``delta`` of None is one the source read does not state.

A row may set a *setting's gain* beside the paper's: ``before`` is the paper's figure without the
setting (so the paper's gain is ``value - before``) and ``ours_without`` names our run without it
(our gain is ours with it minus ours without, seed by seed). When the paper's dataset is not on
this machine, ``our_dataset`` names the one our runs use; such a row must compare gains (it needs
``ours_without``), since accuracies on two datasets are not the same figure.

A LabelDP-Pro row may name ``equal_noise``: the noise multiplier the paper's figure most likely
used (computed with dp_accounting, :mod:`labeldp_core.families.labeldp_pro.equal_noise`) and the
schedule and delta it was computed for, so the page can set our run at that noise beside theirs.
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
    side is that run at the same epsilon, on the same dataset unless ``our_dataset`` names another.
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
    #: The paper's figure without the setting the row is about; None: the row is no gain.
    before: float | None = None
    #: The dataset our runs use when the paper's is not on this machine; None: the paper's.
    our_dataset: str | None = None
    #: Our run without the setting (``{"settings": {...}}``), for our gain; None: no gain.
    ours_without: dict[str, Any] | None = None
    #: The noise the paper's figure most likely used, our reading (``noise_multiplier``,
    #: ``batch``, ``epochs``, ``delta``): LabelDP-Pro's rows, whose accounting differs from ours.
    equal_noise: dict[str, Any] | None = None

    @property
    def run_dataset(self) -> str:
        """The dataset our runs of this figure use."""
        return self.our_dataset or self.dataset

    @property
    def same_dataset(self) -> bool:
        """Whether our runs use the paper's dataset, so our accuracy stands beside theirs."""
        return self.run_dataset == self.dataset


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
        ValueError: a row names no known table, repeats an id, leaves a named field empty, or
            runs ours on another dataset without naming our run without the setting.
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
        _check_gain(figure)
        _check_equal_noise(figure)
        seen.add(figure.id)
        figures.append(figure)
    return figures


def _check_gain(figure: PublishedFigure) -> None:
    """Refuse a row whose our side is on another dataset but compares no gain, or a bad ``before``.

    Accuracies on two datasets are not the same figure: such a row must say what our run is
    without the setting, so the row compares our gain with the paper's.
    """
    if figure.our_dataset is not None and figure.our_dataset == figure.dataset:
        raise ValueError(f"{figure.id}: our_dataset repeats the paper's dataset; leave it out")
    if not figure.same_dataset and figure.ours_without is None:
        raise ValueError(
            f"{figure.id}: ours runs on {figure.run_dataset}, not the paper's {figure.dataset}, "
            "so the row must compare gains: name ours_without"
        )
    if figure.before is not None and not 0 < figure.before <= 1:
        raise ValueError(f"{figure.id}: before must be an accuracy in (0, 1]")


#: What an ``equal_noise`` entry must say: the noise and the schedule and delta behind it.
_EQUAL_NOISE_KEYS = {"noise_multiplier", "batch", "epochs", "delta"}


def _check_equal_noise(figure: PublishedFigure) -> None:
    """Refuse an ``equal_noise`` entry that leaves out (or adds to) its noise, schedule or delta."""
    entry = figure.equal_noise
    if entry is None:
        return
    if set(entry) != _EQUAL_NOISE_KEYS or not all(entry[key] > 0 for key in _EQUAL_NOISE_KEYS):
        raise ValueError(
            f"{figure.id}: equal_noise must give positive {', '.join(sorted(_EQUAL_NOISE_KEYS))}"
        )
