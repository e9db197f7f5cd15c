"""Each mechanism's score over seeds at every computed epsilon, and at one epsilon, best first.

"I can afford ε = x": :func:`summary_at` gives each mechanism's score at the computed epsilon
nearest x, grouped by privacy unit, best first. Compare's summary and the Choose ε page read the
same rows (no plotting here: the command line reads them too).
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from labeldp_core.base.numbers import score_text, shown_spent
from labeldp_core.engine.spec import RunResult

__all__ = [
    "NEIGHBOURS",
    "UNIT_ORDER",
    "clean_baseline",
    "small_epsilon_sentence",
    "summary_at",
    "summary_rows",
]

#: The neighbouring relation each privacy unit's epsilon is for.
NEIGHBOURS = {
    "label": "replace-one label",
    "example": "add/remove one example",
    "output": "one output vector (local DP)",
}

#: The order privacy units are listed in: label DP first, then example-level, then local.
UNIT_ORDER = ("label", "example", "output")


def clean_baseline(results: Sequence[RunResult], metric: str) -> float | None:
    """The mean clean-label score on ``metric`` over the seeds of ``results``, or None.

    Every run records its model trained on clean labels; the runs of one seed share that model,
    so each seed counts once.
    """
    field = "baseline_test_accuracy" if metric == "test accuracy" else "baseline_test_mse"
    by_seed = {r.seed: getattr(r, field) for r in results if getattr(r, field) is not None}
    return float(np.mean(list(by_seed.values()))) if by_seed else None


def _guarantee_text(group: Sequence[RunResult]) -> str:
    spent, delta = max(r.epsilon_spent for r in group), group[0].delta
    text = f"({spent:.3g}, {delta:g})-DP" if delta else f"{spent:.3g}-DP"
    rho = group[0].details.get("rho")
    if rho is not None:
        text = f"ρ = {rho:.3g} zCDP, so {text}"
    return f"{text}, {NEIGHBOURS.get(group[0].privacy_unit, group[0].privacy_unit)}"


def summary_rows(results: Sequence[RunResult], order: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Mean and standard deviation over seeds per (mechanism, epsilon), with the accounting.

    Rows come in the order of ``order`` (the mechanisms as the figure's legend lists them;
    others after them, by name), each mechanism's epsilons ascending.
    """
    groups: dict[tuple[str, float], list[RunResult]] = defaultdict(list)
    for result in results:
        groups[(result.mechanism, result.epsilon)].append(result)
    rank = {mechanism: index for index, mechanism in enumerate(order)}

    def position(key: tuple[str, float]) -> tuple[int, str, float]:
        return rank.get(key[0], len(rank)), key[0], key[1]

    rows = []
    for (mechanism, epsilon), group in sorted(groups.items(), key=lambda item: position(item[0])):
        scores = np.array([r.score for r in group])
        spent = np.array([r.epsilon_spent for r in group])
        rows.append(
            {
                "mechanism": mechanism,
                "privacy unit": group[0].privacy_unit,
                "epsilon asked": epsilon,
                "epsilon spent (max over seeds)": float(spent.max()),
                "delta": group[0].delta,
                "guarantee": _guarantee_text(group),
                "metric": "test accuracy" if group[0].test_accuracy is not None else "test MSE",
                "mean": float(scores.mean()),
                "std": float(scores.std(ddof=1)) if len(scores) > 1 else 0.0,
                "seeds": len(group),
                "clean baseline": float(np.mean([r.baseline_score for r in group])),
            }
        )
    return rows


def summary_at(results: Sequence[RunResult], epsilon: float) -> list[dict[str, Any]]:
    """One row per mechanism at the asked epsilon nearest ``epsilon``, grouped by privacy unit.

    Within a unit the best first (highest accuracy, or lowest MSE); each row says the epsilon
    the mechanism spent there and its guarantee in words, its numbers as a table shows them
    (:mod:`labeldp_core.base.numbers`): the scores in the one score format (:func:`score_text`;
    Compare wrote 0.7333 where Choose ε wrote the same row's 0.733, issue 53).
    """
    if not results:
        return []
    asked = {r.epsilon for r in results}
    nearest = min(asked, key=lambda e: abs(np.log(e) - np.log(epsilon)))
    rows = summary_rows([r for r in results if r.epsilon == nearest])

    def key(row: dict[str, Any]) -> tuple[int, str, float]:
        unit = row["privacy unit"]
        better = -row["mean"] if row["metric"] == "test accuracy" else row["mean"]
        return (UNIT_ORDER.index(unit) if unit in UNIT_ORDER else len(UNIT_ORDER), unit, better)

    return [
        {
            "privacy unit": row["privacy unit"],
            "mechanism": row["mechanism"],
            row["metric"]: _score(row["mean"]),
            "± std": _score(row["std"]),
            "ε spent": shown_spent(row["epsilon spent (max over seeds)"], row["epsilon asked"]),
            "guarantee": row["guarantee"],
        }
        for row in sorted(rows, key=key)
    ]


def _score(value: float | None) -> str | None:
    return None if value is None else score_text(value)


def small_epsilon_sentence(
    results: Sequence[RunResult], titles: Mapping[str, str], ceiling: float = 1.0
) -> str:
    """What label DP keeps at its smallest computed ε (at most ``ceiling``), in plain words.

    The label-DP classifier with the best mean test accuracy over its seeds there, beside
    randomized response's; "" when no label-DP classifier was computed at ε <= ``ceiling``.
    """
    small = [
        r
        for r in results
        if r.privacy_unit == "label" and r.test_accuracy is not None and r.epsilon <= ceiling
    ]
    if not small:
        return ""
    smallest = min(r.epsilon for r in small)
    scores: dict[str, list[float]] = defaultdict(list)
    for result in small:
        if result.epsilon == smallest:
            scores[result.mechanism].append(result.score)
    means = {mechanism: float(np.mean(found)) for mechanism, found in scores.items()}
    best = max(means, key=lambda mechanism: means[mechanism])
    text = (
        f"At ε = {smallest:g}, the smallest label-DP budget drawn, {titles.get(best, best)} "
        f"keeps {means[best]:.3f} test accuracy (mean over its seeds)"
    )
    if best == "rr" or "rr" not in means:
        return text + "."
    return (
        f"{text} where randomized response keeps {means['rr']:.3f}: label DP leaves the images "
        "public, so what they tell (clusters of them, teachers' votes, a first model's "
        "predictions) carries the mechanisms that use it where noise on the labels alone cannot."
    )
