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

A *gain* row (``before`` and ``ours_without`` in the data file) sets a setting's gain beside
the paper's: ours with the setting minus ours without, per seed. When the paper's dataset is not
on this machine (the issue-41 papers publish CIFAR only) our runs use another (``our_dataset``);
such a row leaves ``ours`` empty and compares only the gains, never the accuracies.

Without ``compute`` every figure comes from the result cache, so the table answers at once and
marks the rows whose runs are not computed yet; ``warm`` and ``reproduce --compute`` fill them.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from labeldp_core.accounting.dpsgd import sampling_schedule
from labeldp_core.accounting.truncated_votes import argmax_loss, vote_counts_loss
from labeldp_core.base.numbers import in_words
from labeldp_core.cache import ResultCache
from labeldp_core.data import training_size
from labeldp_core.engine.progress import Progress, silent, within
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, RunResult, lookup, make_config, run
from labeldp_core.families.labeldp_pro.equal_noise import equal_noise_epsilon
from labeldp_core.services.published import (
    FIGURES_FILE,
    PaperTable,
    PublishedFigure,
    paper_tables,
    published_figures,
)
from labeldp_core.services.release_audits import APP_TRIALS, audit_cases, stored_audit_case

__all__ = [
    "FIGURES_FILE",
    "GAIN_COLUMNS",
    "SEEDS",
    "TABLE_COLUMNS",
    "PaperTable",
    "PublishedFigure",
    "Section",
    "computed_configs",
    "dataset_configs",
    "equal_noise_note",
    "fill_instructions",
    "gap_sentence",
    "lesson_rows",
    "page_needs",
    "paper_configs",
    "paper_line",
    "paper_rows",
    "paper_tables",
    "published_figures",
    "sections",
    "without_configs",
]

#: Our side of every row is the mean over these seeds.
SEEDS = (0, 1, 2)
#: The epsilon at which the lessons are audited.
LESSON_EPSILON = 1.0


def paper_configs(figure: PublishedFigure) -> list[RunConfig]:
    """Our runs of ``figure``'s setting: its mechanism and epsilon on our dataset, one per seed."""
    return _configs(figure, figure.ours.get("settings"))


def without_configs(figure: PublishedFigure) -> list[RunConfig]:
    """Our runs without the setting of a gain row (none for other rows), one per seed."""
    if figure.ours_without is None:
        return []
    return _configs(figure, figure.ours_without.get("settings"))


def _configs(figure: PublishedFigure, settings: dict[str, Any] | None) -> list[RunConfig]:
    mechanism, dataset = figure.ours["mechanism"], figure.run_dataset
    return [
        make_config(mechanism, dataset, figure.epsilon, seed, settings=settings) for seed in SEEDS
    ]


def dataset_configs(dataset: str) -> list[RunConfig]:
    """The runs ``reproduce`` sets beside the figures published on ``dataset``, for ``warm``.

    Gain rows whose paper used another dataset are left out: ``reproduce --compute`` runs them.
    """
    return [
        config
        for figure in published_figures()
        if figure.dataset == dataset
        for config in [*paper_configs(figure), *without_configs(figure)]
    ]


def computed_configs() -> list[RunConfig]:
    """Every run ``reproduce --compute`` computes (none on a dataset this machine lacks)."""
    configs = []
    for figure in published_figures():
        try:
            configs += [*paper_configs(figure), *without_configs(figure)]
        except LabelDPError:  # as paper_rows: the row says why
            continue
    return configs


def _ours(figure: PublishedFigure, results: list[RunResult]) -> dict[str, Any]:
    """Our side of a row: scores over the seeds, the clean baseline, the retention ratio.

    A row whose runs use another dataset than the paper's gets none of these (``_gain`` fills
    it): our accuracy there is not the paper's figure.
    """
    if not figure.same_dataset:
        return {key: None for key in _ACCURACY_KEYS} | {"computed_seeds": 0}
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
            configs, without = paper_configs(figure), without_configs(figure)
            row["our_setting"] = _setting(configs[0])
            results = _results([*configs, *without], cache, compute, part)
            noise = _equal_noise(figure, cache)
        except LabelDPError as exc:  # a dataset not on this machine, say
            rows.append(row | {"computed_seeds": 0, "problem": str(exc)})
            continue
        mine = [results[c] for c in configs if c in results]
        pairs = [(results.get(c), results.get(w)) for c, w in zip(configs, without, strict=False)]
        rows.append(row | _ours(figure, mine) | _gain(figure, pairs) | noise)
    return rows


def equal_noise_note(rows: list[dict[str, Any]]) -> str | None:
    """What the equal-noise columns of ``rows`` say, as our reading; None if no row has them."""
    entries = [
        figure.equal_noise
        for figure in published_figures()
        if figure.equal_noise and figure.id in {row["id"] for row in rows}
    ]
    if not entries:
        return None
    schedules = {(e["batch"], e["epochs"], e["delta"]) for e in entries}
    schedule = "; ".join(f"batch {b:,}, {e} epochs, δ {d:g}" for b, e, d in sorted(schedules))
    return (
        "Equal noise, our reading: the paper accounts LabelDP-Pro as DP-SGD (Poisson-subsampled "
        "Gaussian steps, Google's DP library) and takes that add/remove ε as the label's; we read "
        "a changed label by group privacy, about twice the noise at the same ε. Beside each "
        "LabelDP-Pro row: the σ its figure most likely used (dp_accounting's PLD accountant, "
        f"add/remove, at the paper's ε; {schedule}: the table states neither its epochs nor its "
        "δ), the label ε our accounting certifies at that σ, and our accuracy there (seeds "
        f"{', '.join(map(str, SEEDS))}), or the command that computes it."
    )


def _equal_noise(figure: PublishedFigure, cache: ResultCache) -> dict[str, Any]:
    """A LabelDP-Pro row's equal-noise side, our reading: the paper's likely sigma, ours there.

    Our side is the mean over the stored seeds of our run at the label epsilon our accounting
    certifies at that sigma (so it calibrates to that sigma, or a little more noise); without a
    stored run the cell gives the command that computes it.
    """
    if figure.equal_noise is None:
        return {}
    entry = figure.equal_noise
    n_train = training_size(figure.run_dataset)
    q, steps = sampling_schedule(n_train, entry["batch"], entry["epochs"])
    sigma = entry["noise_multiplier"]
    epsilon = equal_noise_epsilon(sigma, q, steps, entry["delta"])
    mechanism = figure.ours["mechanism"]
    configs = [make_config(mechanism, figure.run_dataset, epsilon, seed) for seed in SEEDS]
    found = [r for r in (lookup(c, cache) for c in configs) if r is not None]
    ours = (
        f"{np.mean([r.score for r in found]):.3f} ({len(found)} of {len(SEEDS)} seeds, "
        f"σ {max(r.details['noise_multiplier'] for r in found):.3g})"
        if found
        else f"not run: python -m labeldp_core run {mechanism} --dataset {figure.run_dataset} "
        f"--epsilon {epsilon:g} --seed S (S = {', '.join(map(str, SEEDS))})"
    )
    return {"paper_sigma": sigma, "equal_noise_epsilon": epsilon, "ours_at_paper_sigma": ours}


#: Our accuracy figures: only where our runs use the paper's dataset.
_ACCURACY_KEYS = (
    "ours",
    "ours_min",
    "ours_max",
    "our_epsilon_spent",
    "our_clean",
    "our_retention",
)


#: Our side of a gain row: None until both runs of a seed are computed.
_GAIN_KEYS = (
    "our_with",
    "our_without",
    "our_gain",
    "our_gain_min",
    "our_gain_max",
    "our_gain_epsilon_spent",
)


def _gain(
    figure: PublishedFigure, pairs: list[tuple[RunResult | None, RunResult | None]]
) -> dict[str, Any]:
    """Our gain of a gain row: ours with the setting minus ours without, seed by seed.

    Only seeds with both runs computed count; a row on another dataset than the paper's counts
    those seeds as its computed ones (it has no accuracy of its own to set beside theirs).
    """
    if figure.ours_without is None:
        return {}
    both = [(w, wo) for w, wo in pairs if w is not None and wo is not None]
    found: dict[str, Any] = {"gain_seeds": len(both)} | dict.fromkeys(_GAIN_KEYS)
    if both:
        gains = np.array([w.score - wo.score for w, wo in both])
        found |= {
            "our_with": float(np.mean([w.score for w, _ in both])),
            "our_without": float(np.mean([wo.score for _, wo in both])),
            "our_gain": float(gains.mean()),
            "our_gain_min": float(gains.min()),
            "our_gain_max": float(gains.max()),
            "our_gain_epsilon_spent": max(r.epsilon_spent for pair in both for r in pair),
        }
    if not figure.same_dataset:
        found["computed_seeds"] = len(both)
    return found


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
    } | _their_gain(figure)


def _their_gain(figure: PublishedFigure) -> dict[str, Any]:
    """A gain row's published half: the paper's figure without the setting, our dataset."""
    if figure.ours_without is None:
        return {}
    gain = None if figure.before is None else figure.value - figure.before
    return {
        "their_without": figure.before,
        "their_gain": gain,
        "our_dataset": figure.run_dataset,
        "our_change": _change(figure),
        "comparison": _comparison(figure),
    }


def _change(figure: PublishedFigure) -> str:
    """The setting a gain row is about, as ours runs it: ``consensus=1 against consensus=0``."""
    with_it = figure.ours.get("settings") or {}
    without = (figure.ours_without or {}).get("settings") or {}
    keys = [
        key for key in dict.fromkeys([*with_it, *without]) if with_it.get(key) != without.get(key)
    ]
    on = ", ".join(f"{key}={with_it.get(key, 'default')}" for key in keys)
    off = ", ".join(f"{key}={without.get(key, 'default')}" for key in keys)
    return f"{on} against {off}"


def _comparison(figure: PublishedFigure) -> str:
    """What a gain row compares, said plainly: the gains, and on which datasets."""
    if figure.same_dataset:
        return f"the gain on {figure.dataset}, theirs and ours"
    return (
        f"gains only: theirs on {figure.dataset}, ours on {figure.run_dataset}; the datasets "
        "differ, so the accuracies are not the same figure"
    )


def _setting(config: RunConfig) -> str:
    """Our side's model and recipe in a phrase: the model setting and the epochs."""
    return f"model={config.setting('model')}, {config.epochs} epochs"


#: The last columns of every table on the Papers page: our run's setting and where a row comes from.
_SOURCE_COLUMNS = (
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
    "paper_sigma",
    "equal_noise_epsilon",
    "ours_at_paper_sigma",
    "their_clean",
    "our_clean",
    "their_retention",
    "our_retention",
    *_SOURCE_COLUMNS,
)


#: The columns of a gain table on the Papers page: the paper's gain beside ours, our dataset named.
GAIN_COLUMNS = (
    "method",
    "epsilon",
    "delta",
    "theirs",
    "their_without",
    "their_gain",
    "our_dataset",
    "our_change",
    "our_gain",
    "our_gain_min",
    "our_gain_max",
    "our_with",
    "our_without",
    "computed_seeds",
    "comparison",
    *_SOURCE_COLUMNS,
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

    def compares_gains(self) -> bool:
        """Whether this table's rows compare a setting's gain (so the page draws no accuracies)."""
        return any("our_change" in row for row in self.rows)  # every gain row names its change

    def columns(self) -> tuple[str, ...]:
        """The columns the page shows for this table: accuracies, or gains."""
        return GAIN_COLUMNS if self.compares_gains() else TABLE_COLUMNS

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


def page_needs(rows: list[dict[str, Any]]) -> tuple[str, tuple[str, ...]] | None:
    """What the Papers page needs, in one line, and the datasets a warm would fill; None if none.

    The datasets are those of the rows without a run of ours (the gain rows run on another
    dataset are left to :func:`fill_instructions`); those this machine lacks are said to need
    installing first, and are not in the datasets to warm.
    """
    missing = [row for row in rows if not row.get("computed_seeds")]
    needed = sorted({row["dataset"] for row in missing if not _crosses_datasets(row)})
    if not needed:
        return None
    absent = {row["dataset"] for row in missing if row.get("problem")}
    lacking = (
        f"none of the {len(rows)} published figures has a run of ours beside it yet"
        if len(missing) == len(rows)
        else f"{len(missing)} of the {len(rows)} published figures have no run of ours yet"
    )
    install = "installed and " if absent & set(needed) else ""
    line = f"This page needs {in_words(needed)} {install}warmed: {lacking}."
    return line, tuple(d for d in needed if d not in absent)


def fill_instructions(rows: list[dict[str, Any]]) -> str | None:
    """What is missing from the papers' comparison and which command fills it; None if nothing.

    Said plainly for a page or a terminal: which datasets the missing rows need, which of them
    this machine lacks (and why), and the command that computes our side. Gain rows run on
    another dataset than their paper's are named apart: ``warm`` does not run them.
    """
    missing = [row for row in rows if not row.get("computed_seeds")]
    if not missing:
        return None
    crossed = [row for row in missing if _crosses_datasets(row)]
    datasets = sorted({row["dataset"] for row in missing if row not in crossed})
    absent = {row["dataset"]: row["problem"] for row in missing if row.get("problem")}
    none = len(missing) == len(rows)
    lacking = (
        f"None of the {len(rows)} published figures has a run of this explorer beside it yet"
        if none
        else f"{len(missing)} of the {len(rows)} published figures have no run of ours yet"
    )
    parts = [
        f"{lacking}: they report {', '.join(datasets or ['other datasets'])}, and this cache "
        "holds no run of theirs there"
        + (" (a cache warmed on digits only has none)." if "digits" not in datasets else ".")
    ]
    for dataset, problem in absent.items():
        parts.append(f"{dataset} is not on this machine: {problem}")
    parts.append(
        "`python -m labeldp_core reproduce --compute` computes the missing runs (seeds "
        f"{', '.join(map(str, SEEDS))}; DP-SGD on 60,000 images takes a while)"
        + (
            ", or "
            + " ".join(f"`python -m labeldp_core warm --dataset {d}`" for d in datasets)
            + " with the rest of that dataset's demo points."
            if datasets
            else "."
        )
    )
    if crossed:
        parts.append(_crossed_note(crossed))
    return " ".join(parts)


def _crosses_datasets(row: dict[str, Any]) -> bool:
    """Whether a row's runs use another dataset than its paper's (a gain row, gains only)."""
    return row.get("our_dataset", row["dataset"]) != row["dataset"]


def _crossed_note(crossed: list[dict[str, Any]]) -> str:
    """Which missing gain rows run on another dataset than their paper's, and what fills them."""
    theirs = sorted({row["dataset"] for row in crossed})
    ours = sorted({row["our_dataset"] for row in crossed})
    return (
        f"{len(crossed)} of them set a setting's gain on {', '.join(ours)} beside the paper's on "
        f"{', '.join(theirs)} (not on this machine); warm does not run those, "
        "`reproduce --compute` does."
    )


def paper_line(row: dict[str, Any]) -> str:
    """One row of :func:`paper_rows` in a line, for a terminal.

    A row whose runs use another dataset than the paper's names both datasets and sets our gain
    beside theirs; it never prints our accuracy beside theirs as if it were the same figure.
    """
    head = (
        f"{row['id']}: {row['method']} on {row['dataset']} at epsilon {row['epsilon']:g}: "
        f"theirs {row['theirs']:.3f}"
    )
    if not _crosses_datasets(row):
        return f"{head}; {_our_accuracy(row)}" + (
            f"; {_our_gain(row)}" if "our_change" in row else ""
        )
    theirs = (
        f" ({row['their_without']:.3f} without it: gain {row['their_gain']:+.3f})"
        if row.get("their_gain") is not None
        else " (the source read gives no figure without it)"
    )
    return (
        f"{head}{theirs}; ours on {row['our_dataset']}, a different dataset, so only the gains "
        f"compare: {_our_gain(row)}"
    )


def _our_accuracy(row: dict[str, Any]) -> str:
    if not row["computed_seeds"]:
        return "ours: not computed yet (reproduce --compute, or warm)"
    return (
        f"ours {row['ours']:.3f} ({row['ours_min']:.3f}-{row['ours_max']:.3f}, "
        f"{row['computed_seeds']} seed{'s' if row['computed_seeds'] != 1 else ''})"
    )


def _our_gain(row: dict[str, Any]) -> str:
    if not row.get("gain_seeds"):
        return f"our gain of {row['our_change']}: not computed yet (reproduce --compute)"
    return (
        f"our gain of {row['our_change']} {row['our_gain']:+.3f} ({row['our_gain_min']:+.3f} to "
        f"{row['our_gain_max']:+.3f}, {row['gain_seeds']} seeds: {row['our_with']:.3f} against "
        f"{row['our_without']:.3f})"
    )


def gap_sentence(rows: list[dict[str, Any]], dataset: str) -> str:
    """Where this explorer stands against the papers on ``dataset``, in a sentence or two.

    It reads the first table (in the data file's order) with figures on ``dataset``, the one
    closest to this explorer's models: per epsilon, the best published method and ours for the
    same mechanism. The other tables are counted, not listed.
    """
    mine = [row for row in rows if row["dataset"] == dataset and not _crosses_datasets(row)]
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
) -> dict[RunConfig, RunResult]:
    """The results of ``configs`` found in the cache (or computed first if ``compute``)."""
    found = {}
    for index, config in enumerate(configs):
        result = lookup(config, cache)
        if result is None and compute:
            part = within(progress, index / len(configs), (index + 1) / len(configs))
            result = run(config, cache, part)
        if result is not None:
            found[config] = result
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
