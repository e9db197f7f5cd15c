"""A run context for the rr-prior tests that look inside the prior: digits, a fresh cache."""

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.engine.context import RunContext
from labeldp_core.engine.spec import RunConfig


@contextmanager
def digits_context(
    config: RunConfig, directory: Path, y_train: np.ndarray | None = None
) -> Iterator[RunContext]:
    """``config``'s context on digits in a fresh cache at ``directory``.

    The training labels are replaced by ``y_train`` if given (to show what reads no label).
    """
    data = load_dataset("digits")
    if y_train is not None:
        data = dataclasses.replace(data, y_train=y_train)
    store = ResultCache(directory)
    try:
        ctx = RunContext(config, "classification", store, lambda *_: None)
        ctx.__dict__["dataset"] = data  # the cached property, set before its first use
        yield ctx
    finally:
        store.close()
