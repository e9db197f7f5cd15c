"""Where canaries may go: the training rows whose labels a mechanism's ε protects.

A canary in a public part (RR-with-prior's encoder part, PATE's query pool, the DP prototypes'
candidates) has a label the claim does not cover, and one outside the subsample a run trains on
is never learnt: either way the audit would measure something the claim never spoke of. Each
family declares its rows (:attr:`~labeldp_core.families.family.Mechanism.protected_rows`, with
the functions its runs split by); undeclared, every training row is protected.
"""

import hashlib
from dataclasses import replace

import numpy as np

from labeldp_core.data import Dataset
from labeldp_core.engine.config import RunConfig
from labeldp_core.errors import InvalidInputError
from labeldp_core.model_audit.canaries import Canaries
from labeldp_core.registry import mechanism_entries

__all__ = ["check_rows_kept", "protected_rows", "rows_digest"]


def protected_rows(config: RunConfig, data: Dataset) -> np.ndarray:
    """The sorted training rows whose labels ``config``'s run protects, as its family declares."""
    declared = next(m.protected_rows for m in mechanism_entries() if m.id == config.mechanism)
    if declared is None:
        return np.arange(data.n_train)
    return np.unique(np.asarray(declared(config, data), dtype=np.int64))


def check_rows_kept(config: RunConfig, data: Dataset, canaries: Canaries, rows: np.ndarray) -> None:
    """Refuse a run whose protected rows move when the canaries' labels are planted.

    A subsample drawn by label (DP-SGD's ``imbalance`` > 1) is redrawn from the planted labels,
    so the canaries would change which examples the run protects and trains on.
    """
    planted = replace(data, y_train=canaries.plant(data.y_train))
    if not np.array_equal(protected_rows(config, planted), rows):
        raise InvalidInputError(
            f"the training rows '{config.mechanism}' protects are drawn from the labels with these "
            "settings (a subsample by class, as imbalance > 1 draws), so planting canaries would "
            "change which examples it protects and trains on; audit it on the whole training "
            "split (imbalance 1)"
        )


def rows_digest(rows: np.ndarray) -> str:
    """A short digest of ``rows``, for the cache key of the canaries drawn from them."""
    return hashlib.sha256(np.asarray(rows, dtype=np.int64).tobytes()).hexdigest()[:16]
