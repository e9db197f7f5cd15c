"""Our figures beside the papers', and the seeds' claimed epsilons beside the true ones.

Two tables. *Papers*: every figure of ``published_figures.json`` (paper, table, dataset, model,
epsilon, delta, privacy unit, their number) beside this explorer's run of the same mechanism at
the same epsilon on the same dataset, over seeds 0-2 (mean and range), with both clean
baselines and both retention ratios (private / clean). *Lessons*: slips of the tutorials this
project grew from, each with the epsilon it claims, the epsilon it really spends (computed) for
what is released and the lower bound this project's audit proves for it. PATE's truncated
noise appears twice: its noisy vote counts cost 1 + 2 ln 2, the argmax PATE publishes at most 1.

Without ``compute`` every figure comes from the result cache, so the table answers at once and
marks the rows whose runs are not computed yet; ``warm`` and ``reproduce --compute`` fill them.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from labeldp_core.accounting.truncated_votes import argmax_loss, vote_counts_loss
from labeldp_core.audit import audit_cases, stored_audit_case
from labeldp_core.audit.suite import APP_TRIALS
from labeldp_core.cache import ResultCache
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, RunResult, lookup, make_config, run

__all__ = [
    "FIGURES_FILE",
    "SEEDS",
    "PublishedFigure",
    "dataset_configs",
    "fill_instructions",
    "gap_sentence",
    "lesson_rows",
    "paper_configs",
    "paper_rows",
    "published_figures",
]

FIGURES_FILE = Path(__file__).with_name("published_figures.json")
#: Our side of every row is the mean over these seeds.
SEEDS = (0, 1, 2)
#: The epsilon at which the lessons are audited.
LESSON_EPSILON = 1.0


@dataclass(frozen=True)
class PublishedFigure:
    """One figure quoted from a paper, and the run of this explorer that matches it."""

    id: str
    paper: str
    where: str
    dataset: str
    model: str
    method: str
    epsilon: float
    delta: float
    privacy_unit: str
    metric: str
    value: float
    clean_value: float | None
    ours: dict[str, Any]
    quoted_from: str


def published_figures(path: Path = FIGURES_FILE) -> list[PublishedFigure]:
    """Every figure of the data file, checked to name its paper and where it was read."""
    rows = json.loads(path.read_text())["rows"]
    figures = [PublishedFigure(**row) for row in rows]
    for figure in figures:
        if not (figure.paper and figure.where and figure.quoted_from):
            raise ValueError(f"{figure.id}: every published figure must name its source")
    return figures


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
    """One row per published figure; our side from the cache (computed first if ``compute``)."""
    cache = ResultCache() if cache is None else cache
    figures = published_figures()
    rows = []
    for index, figure in enumerate(figures):
        row = {
            "id": figure.id,
            "paper": figure.paper,
            "where": figure.where,
            "dataset": figure.dataset,
            "model": figure.model,
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
            "quoted_from": figure.quoted_from,
        }
        part = within(progress, index / len(figures), (index + 1) / len(figures))
        try:
            results = _results(paper_configs(figure), cache, compute, part)
        except LabelDPError as exc:  # a dataset not on this machine, say
            rows.append(row | {"computed_seeds": 0, "problem": str(exc)})
            continue
        rows.append(row | _ours(figure, results))
    return rows


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
    """Where this explorer stands against the papers on ``dataset``, in a sentence or two."""
    mine = [row for row in rows if row["dataset"] == dataset]
    if not mine:
        return (
            f"No published figure on {dataset} is set beside ours yet: the papers we match "
            "report Fashion-MNIST (see Papers vs this explorer)."
        )
    parts = []
    for row in mine:
        ours = (
            f"ours {row['ours']:.1%} over {row['computed_seeds']} seed(s)"
            if row["computed_seeds"]
            else "ours not computed yet"
        )
        parts.append(
            f"{row['method']} at ε = {row['epsilon']:g}: {row['theirs']:.1%} "
            f"published ({row['model']}), {ours}"
        )
    return (
        "Against the literature on "
        + dataset
        + " (Papers vs this explorer has the sources): "
        + "; ".join(parts)
        + ". The papers train larger models for longer, so compare the "
        "retention ratios (private / clean) on that page too."
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
