"""Where a dataset's results are kept: the shared result cache, or a user's table's own one.

A built-in dataset's results live in the cache they are asked from; a table of the user's own
(``table-...``) keeps its results in a cache of its own in the table's folder, so that forgetting
the table deletes them with it (:mod:`labeldp_core.data.table_results`). This is the one place
that tells the two apart, so a built-in dataset's point never enters the table code.
"""

from labeldp_core.cache import ResultCache
from labeldp_core.data.registry import DATASETS
from labeldp_core.data.table_results import results_cache

__all__ = ["results_store"]


def results_store(cache: ResultCache, dataset: str) -> ResultCache:
    """The result cache that keeps ``dataset``'s results: ``cache``, or its table's own.

    A built-in dataset (one of :data:`~labeldp_core.data.registry.DATASETS`) is told by its
    name alone, so its point runs nothing of the table code; any other is a table's.

    Raises:
        TableForgottenError: if ``dataset`` is a table that is not stored (it is not created
            again here).
    """
    return cache if dataset in DATASETS else results_cache(cache, dataset)
