"""Our figures beside the papers', and the seeds' claimed epsilons beside the true ones.

Two tables. *Papers*: every figure of ``published_figures.json`` (paper, table, dataset, model
and training recipe, epsilon, delta, privacy unit, their number) beside this explorer's run of
the same mechanism at the same epsilon on the same dataset, over seeds 0-2 (mean and range),
with both clean baselines and both retention ratios (private / clean), grouped by the paper's
table, the one closest to this explorer's models (LabelDP-Pro's small CNN) first. *Lessons*:
slips of the tutorials this project grew from, each with the epsilon it claims, the epsilon it
really spends (computed) for what is released and the lower bound this project's audit proves
for it. PATE's truncated noise appears twice: its noisy vote counts cost 1 + 2 ln 2, the argmax
PATE publishes at most 1.

Without ``compute`` every figure comes from the result cache, so the table answers at once and
marks the rows whose runs are not computed yet; ``warm`` and ``reproduce --compute`` fill them.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from labeldp_core.accounting.truncated_votes import argmax_loss, vote_counts_loss
from labeldp_core.audit import audit_cases, stored_audit_case
from labeldp_core.audit.suite import APP_TRIALS
from labeldp_core.cache import ResultCache
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, RunResult, lookup, make_config, run
from labeldp_core.published import (
    FIGURES_FILE,
    PaperTable,
    PublishedFigure,
    paper_tables,
    published_figures,
)

__all__ = [
    "FIGURES_FILE",
    "SEEDS",
    "TABLE_COLUMNS",
    "PaperTable",
    "PublishedFigure",
    "Section",
    "dataset_configs",
    "fill_instructions",
    "gap_sentence",
    "lesson_rows",
    "paper_configs",
    "paper_rows",
    "paper_tables",
    "published_figures",
    "sections",
]

#: Our side of every row is the mean over these seeds.
SEEDS = (0, 1, 2)
#: The epsilon at which the lessons are audited.
LESSON_EPSILON = 1.0


def paper_configs(figure: PublishedFigure) -> list[RunConfig]:
    """Our runs of ``figure``'s setting: its mechanism, dataset and epsilon, one per seed."""
    mechanism, settings = figure.ours["mechanism"], figure.ours.get("settings")
    return [
        make_config(mechanism, figure.dataset, figure.epsilon, seed, settings=settings)
        for seed in SEEDS
    ]


def dataset_configs(dataset: str) -> list[RunConfig]:
    """The runs ``reproduce`` sets beside the figures published on ``dataset``, for ``warm``."""
    return [
        config
        for figure in published_figures()
        if figure.dataset == dataset
        for config in paper_configs(figure)
    ]


def _ours(figure: PublishedFigure, results: list[RunResult]) -> dict[str, Any]:
    """Our side of a row: scores over the seeds, the clean baseline, the retention ratio."""
    if not results:
        return {"computed_seeds": 0}
    scores = np.array([r.score for r in results])
    clean = float(np.mean([r.baseline_score for r in results]))
    return {
        "computed_seeds": len(results),
        "ours": float(scores.mean()),
        "ours_min": float(scores.min()),
        "ours_max": float(scores.max()),
        "our_epsilon_spent": max(r.epsilon_spent for r in results),
        "our_clean": clean,
        "our_retention": float(scores.mean()) / clean,
    }


def paper_rows(
    cache: ResultCache | None = None, compute: bool = False, progress: Progress = silent
) -> list[dict[str, Any]]:
    """One row per published figure; our side from the cache (computed first if ``compute``).

    Each row names the paper's model and recipe and ours (``our_setting``: our model setting
    and epochs), so a reader sees what is compared with what.
    """
    cache = ResultCache() if cache is None else cache
    figures = published_figures()
    rows = []
    for index, figure in enumerate(figures):
        row = _their_side(figure)
        part = within(progress, index / len(figures), (index + 1) / len(figures))
        try:
            configs = paper_configs(figure)
            row["our_setting"] = _setting(configs[0])
            results = _results(configs, cache, compute, part)
        except LabelDPError as exc:  # a dataset not on this machine, say
            rows.append(row | {"computed_seeds": 0, "problem": str(exc)})
            continue
        rows.append(row | _ours(figure, results))
    return rows


def _their_side(figure: PublishedFigure) -> dict[str, Any]:
    """The published half of a row: the figure, its setting and where it was read."""
    return {
        "id": figure.id,
        "table": figure.table,
        "paper": figure.paper,
        "where": figure.where,
        "dataset": figure.dataset,
        "model": figure.model,
        "recipe": figure.recipe,
        "method": figure.method,
        "epsilon": figure.epsilon,
        "delta": figure.delta,
        "privacy_unit": figure.privacy_unit,
        "theirs": figure.value,
        "their_clean": figure.clean_value,
        "their_retention": None
        if figure.clean_value is None
        else figure.value / figure.clean_value,
        "our_mechanism": figure.ours["mechanism"],
        "our_setting": None,
        "quoted_from": figure.quoted_from,
    }


def _setting(config: RunConfig) -> str:
    """Our side's model and recipe in a phrase: the model setting and the epochs."""
    return f"model={config.setting('model')}, {config.epochs} epochs"


#: The columns of each table on the Papers page, in order (the table and dataset are its headings).
TABLE_COLUMNS = (
    "method",
    "epsilon",
    "delta",
    "theirs",
    "ours",
    "ours_min",
    "ours_max",
    "computed_seeds",
    "their_clean",
    "our_clean",
    "their_retention",
    "our_retention",
    "our_mechanism",
    "our_setting",
    "model",
    "recipe",
    "privacy_unit",
    "where",
    "quoted_from",
    "paper",
    "id",
    "problem",
)


@dataclass(frozen=True)
class Section:
    """One published table's rows, as the Papers page shows them: a chart per dataset."""

    table: PaperTable
    rows: list[dict[str, Any]]

    def datasets(self) -> dict[str, list[dict[str, Any]]]:
        """The rows per dataset, in order: one chart each keeps one bar per name."""
        found: dict[str, list[dict[str, Any]]] = {}
        for row in self.rows:
            found.setdefault(row["dataset"], []).append(row)
        return found

    def setting(self) -> str:
        """The paper's model and recipe when the rows share them, else where each row says."""
        models = {row["model"] for row in self.rows}
        recipes = {row["recipe"] for row in self.rows}
        if len(models) == 1 == len(recipes):
            return f"Their model: {models.pop()}. Their recipe: {recipes.pop()}."
        return "Each row's model and recipe are in its table."


def sections(rows: list[dict[str, Any]]) -> list[Section]:
    """``rows`` grouped by published table, in the data file's order: closest to ours first."""
    found = []
    for table in paper_tables():
        mine = [row for row in rows if row["table"] == table.id]
        if mine:
            found.append(Section(table, mine))
    return found


def fill_instructions(rows: list[dict[str, Any]]) -> str | None:
    """What is missing from the papers' comparison and which command fills it; None if nothing.

    Said plainly for a page or a terminal: which datasets the missing rows need, which of them
    this machine lacks (and why), and the command that computes our side.
    """
    missing = [row for row in rows if not row.get("computed_seeds")]
    if not missing:
        return None
    datasets = sorted({row["dataset"] for row in missing})
    absent = {row["dataset"]: row["problem"] for row in missing if row.get("problem")}
    none = len(missing) == len(rows)
    lacking = (
        f"None of the {len(rows)} published figures has a run of this explorer beside it yet"
        if none
        else f"{len(missing)} of the {len(rows)} published figures have no run of ours yet"
    )
    parts = [
        f"{lacking}: they report {', '.join(datasets)}, and this cache holds no run of "
        "theirs there"
        + (" (a cache warmed on digits only has none)." if "digits" not in datasets else ".")
    ]
    for dataset, problem in absent.items():
        parts.append(f"{dataset} is not on this machine: {problem}")
    parts.append(
        "`python -m labeldp_core reproduce --compute` computes the missing runs (seeds "
        f"{', '.join(map(str, SEEDS))}; DP-SGD on 60,000 images takes a while), or "
        + " ".join(f"`python -m labeldp_core warm --dataset {d}`" for d in datasets)
        + " with the rest of that dataset's demo points."
    )
    return " ".join(parts)


def gap_sentence(rows: list[dict[str, Any]], dataset: str) -> str:
    """Where this explorer stands against the papers on ``dataset``, in a sentence or two.

    It reads the first table (in the data file's order) with figures on ``dataset``, the one
    closest to this explorer's models: per epsilon, the best published method and ours for the
    same mechanism. The other tables are counted, not listed.
    """
    mine = [row for row in rows if row["dataset"] == dataset]
    if not mine:
        return (
            f"No published figure on {dataset} is set beside ours yet: the papers we match "
            "report MNIST and Fashion-MNIST (see Papers vs this explorer)."
        )
    lead = sections(mine)[0]
    parts = []
    for epsilon in dict.fromkeys(row["epsilon"] for row in lead.rows):
        best = max((r for r in lead.rows if r["epsilon"] == epsilon), key=lambda r: r["theirs"])
        ours = f"ours {best['ours']:.1%}" if best["computed_seeds"] else "ours not computed yet"
        parts.append(
            f"ε = {epsilon:g} {best['method'].split(' (')[0]} {best['theirs']:.1%} ({ours})"
        )
    others = len(mine) - len(lead.rows)
    return (
        f"Against the literature on {dataset} (Papers vs this explorer has the sources, models "
        f"and recipes), closest to our models, {lead.table.title.split(':')[0]}, best "
        "published per ε: "
        + "; ".join(parts)
        + "."
        + (
            f" {others} more published figures on {dataset}, from other models and recipes, "
            "are on that page (compare their retention ratios, private / clean)."
            if others
            else ""
        )
    )


def _results(
    configs: list[RunConfig], cache: ResultCache, compute: bool, progress: Progress
) -> list[RunResult]:
    found = []
    for index, config in enumerate(configs):
        result = lookup(config, cache)
        if result is None and compute:
            part = within(progress, index / len(configs), (index + 1) / len(configs))
            result = run(config, cache, part)
        if result is not None:
            found.append(result)
    return found


#: The scale PATE's LNMax calibrates for the lessons' epsilon: 2/ε (one vote moves two counts).
_PATE_SCALE = 2.0 / LESSON_EPSILON
_PATE_SLIP = (
    "PATE votes with Laplace noise truncated to an integer before it is added "
    "(count + int(noise)): all of (-1, 1) lands on 0, so P(0) doubles"
)

#: The seeds' slips: (lesson, what is released, claimed, true epsilon of that release and how it
#: is computed, audit case or None).
_LESSONS = (
    (
        "A tutorial spends 0.1 of its budget on a cluster prior, then runs RR at 1.95 while "
        "claiming epsilon 1",
        "the noisy labels",
        1.0,
        0.1 + 1.95,
        "sequential composition: 0.1 (prior) + 1.95 (RR)",
        ("rr-prior", "RR step at 1.95ε"),
    ),
    (
        "Laplace noise on softmax outputs calibrated to sensitivity 1 (two probability vectors "
        "differ by 2 in L1)",
        "the noisy softmax outputs",
        1.0,
        2.0,
        "2 / scale with scale 1/epsilon",
        ("softmax-laplace", "scale 1/ε"),
    ),
    (
        _PATE_SLIP,
        "the noisy vote counts",
        1.0,
        vote_counts_loss(_PATE_SCALE),
        "2/b + 2 ln 2 at b = 2/epsilon: two counts, each 1/b + ln 2 (P(0) = 2 e^(1/b) P(±1))",
        ("pate", "truncated"),
    ),
    (
        _PATE_SLIP,
        "only the argmax (what PATE publishes)",
        1.0,
        argmax_loss(_PATE_SCALE),
        "2/b at b = 2/epsilon: the supremum over two-class vote histograms of the answer's "
        "log-ratio (closed form), approached as one class's lead grows and never reached "
        "(0.97 at a lead of 60; three classes on a grid of leads up to 12 stay below it too): "
        "truncation costs the argmax nothing beyond the untruncated noise's 2/b. No audit: the "
        "claim holds",
        None,
    ),
)


def _audited(mechanism: str, marker: str, cache: ResultCache) -> dict[str, Any]:
    """The audit of the control of ``mechanism`` whose name holds ``marker``, from the cache."""
    cases = audit_cases(mechanism, LESSON_EPSILON)
    index = next(i for i, case in enumerate(cases) if marker in case.name)
    result = stored_audit_case(mechanism, LESSON_EPSILON, index, APP_TRIALS, 0, cache)
    return {
        "audited_lower_bound": result.epsilon_lower_bound,
        "audit_case": result.name,
        "audit_trials": result.trials,
    }


def lesson_rows(cache: ResultCache | None = None) -> list[dict[str, Any]]:
    """The seeds' slips: claimed vs true epsilon of what is released, and the audit's bound.

    A row without an audit case (the claim holds) has None for the audit's entries.
    """
    cache = ResultCache() if cache is None else cache
    rows = []
    for lesson, released, claimed, true, how, audit in _LESSONS:
        row = {
            "lesson": lesson,
            "released": released,
            "claimed_epsilon": claimed,
            "true_epsilon": true,
            "how": how,
        }
        unaudited = {"audited_lower_bound": None, "audit_case": None, "audit_trials": None}
        rows.append(row | (_audited(*audit, cache) if audit else unaudited))
    return rows
