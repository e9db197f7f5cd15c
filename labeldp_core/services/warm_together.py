"""A warm's points of one small model, computed together (:mod:`labeldp_core.experiments.together`).

``warm`` sends its points to its workers in order of need. Where several points in a row are of
one kind (one mechanism and its settings: its ε grid and seeds) and train a model the batched
trainer takes (the logistic model or the MLP: a user's table by default), they go to one worker
as one task that trains them together; each is still stored under its own key and counted as
its own point. Everything else (the CNN of the bundled datasets, audits) goes one point a task.
"""

from dataclasses import replace
from typing import TYPE_CHECKING

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, run
from labeldp_core.experiments.together import CHUNK, can_train_together, compute_chunk

if TYPE_CHECKING:
    from labeldp_core.services.warm import WarmTask

__all__ = ["GROUP_LIMIT", "compute_points", "grouped", "members"]

#: The most points one task trains together (see :data:`~labeldp_core.experiments.together.CHUNK`).
GROUP_LIMIT = CHUNK


def _joins(group: list["WarmTask"], task: "WarmTask") -> bool:
    """Whether ``task`` can train with ``group``: the same kind, view, dataset and epochs."""
    first = group[0]
    if task.config is None or len(group) >= GROUP_LIMIT:
        return False
    same = (task.kind, task.page, task.first_view, task.config.dataset, task.config.epochs)
    return same == (
        first.kind,
        first.page,
        first.first_view,
        first.config.dataset,
        first.config.epochs,
    )


def grouped(tasks: list["WarmTask"]) -> list["WarmTask"]:
    """``tasks`` in the same order, runs of points that can train together made one task each.

    A group is its first point's task with the others in ``together``.
    """
    groups: list[list[WarmTask]] = []
    for task in tasks:
        if groups and groups[-1][0].config is not None and _joins(groups[-1], task):
            groups[-1].append(task)
        else:
            groups.append([task])
    merged: list[WarmTask] = []
    for group in groups:
        configs = [task.config for task in group]
        if len(group) > 1 and can_train_together(configs):
            merged.append(replace(group[0], together=tuple(configs[1:])))
        else:
            merged += group
    return merged


def members(task: "WarmTask") -> list["WarmTask"]:
    """The points a task computes: itself, or each point of its group."""
    return [replace(task, together=())] + [
        replace(task, config=config, together=()) for config in task.together
    ]


def compute_points(task: "WarmTask", cache: ResultCache) -> None:
    """Compute a run task's point, or its group's points together, into ``cache``."""
    if task.together:
        configs = [task.config, *task.together]
        compute_chunk([c for c in configs if lookup(c, cache) is None], cache)
    else:
        run(task.config, cache)
