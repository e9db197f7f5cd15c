"""A PATE run again with every public label scrambled: what must not read them stays equal."""

from dataclasses import replace

import numpy as np

from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.experiments import RunConfig, RunResult, run


def run_with_public_labels_scrambled(
    config: RunConfig, teachers: int, directory, monkeypatch
) -> RunResult:
    """``config`` run in a fresh cache under ``directory`` with each public label made wrong."""
    data = load_dataset(config.dataset)
    split = teacher_split(data.n_train, teachers, config.seed)
    y_train = data.y_train.copy()
    y_train[split.public] = (y_train[split.public] + 1 + np.arange(split.public.size) % 9) % 10
    scrambled = replace(data, y_train=y_train)
    monkeypatch.setattr("labeldp_core.engine.context.load_dataset", lambda name: scrambled)
    other_cache = ResultCache(directory / "scrambled")
    try:
        return run(config, other_cache)
    finally:
        other_cache.close()


def assert_the_student_read_no_public_label(first: RunResult, second: RunResult) -> None:
    """``second`` (public labels scrambled) released and trained as ``first`` did.

    The teachers' accuracy, scored on the public labels, must change: the scrambling took effect.
    """
    details, again = first.details, second.details
    assert details["self_training"]["pseudo_labelled"][0] > 0  # the pool was used
    assert second.test_accuracy == first.test_accuracy
    assert again["student_supervised_accuracy"] == details["student_supervised_accuracy"]
    assert again["self_training"] == details["self_training"]
    assert again["released"] == details["released"]
    assert again["teacher_accuracy"] != details["teacher_accuracy"]
