"""Where the results of a table of the user's own are kept, and forgetting a table with them.

Every result computed from a table lives in a result cache of its own in the table's folder
(:func:`results_cache`), so :func:`forget_table` deletes the table and everything computed from it
by removing one folder. A point may be computing from the table meanwhile (another session, a
worker process): forget and every write to a table's results take one file lock
(``<cache>/tables/.lock``), and a write checks under it that its table is still the one it opened,
so forget waits for a write in progress and a point that writes after the forget fails with
:class:`TableForgottenError` instead of recreating the folder.
"""

import fcntl
import os
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from labeldp_core.cache import ResultCache
from labeldp_core.data.registry import load_dataset
from labeldp_core.data.tables import _folder, _tables_dir
from labeldp_core.errors import InvalidInputError

__all__ = ["TableForgottenError", "forget_table", "results_cache"]


class TableForgottenError(InvalidInputError):
    """The table a point computes from was forgotten (deleted): nothing of it is written."""


@contextmanager
def _tables_lock(root: Path | None) -> Iterator[None]:
    """Hold the tables' file lock: one forget or one write to a table's results at a time.

    One lock for every table, in the tables' folder, so that forgetting a table leaves no file
    named after it behind; a write holds it only while it stores one entry.
    """
    folder = _tables_dir(root)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _folder_identity(folder: Path) -> tuple[int, int] | None:
    """The table folder's (device, inode) if it holds a table, else None."""
    try:
        found = os.stat(folder)
    except FileNotFoundError:
        return None
    return (found.st_dev, found.st_ino) if (folder / "table.json").is_file() else None


class _TableResults(ResultCache):
    """A table's result cache that writes only while its table is stored.

    Every write checks, under the tables' lock, that the table is still the one it was opened
    for: not forgotten, nor forgotten and added again (a new folder, another database). It is
    opened on the table's folder, as :func:`results_cache` found it once.
    """

    def __init__(self, table: Path, root: Path) -> None:
        self._table = table
        self._root = root
        self._opened = _folder_identity(self._table)
        super().__init__(self._table / "results")

    def current(self) -> bool:
        """Whether the table this cache was opened for is still stored."""
        return self._opened is not None and _folder_identity(self._table) == self._opened

    @contextmanager
    def _writing(self) -> Iterator[None]:
        with _tables_lock(self._root):
            if not self.current():
                raise TableForgottenError(
                    f"the table was forgotten while this point was computing ({self._table.name}"
                    "): nothing of it was kept; add the table again to compute it"
                )
            yield

    def put_json(self, key: str, value: Mapping[str, Any]) -> None:
        """:meth:`ResultCache.put_json`, only while the table is stored."""
        with self._writing():
            super().put_json(key, value)

    def put_arrays(self, key: str, arrays: Mapping[str, np.ndarray]) -> None:
        """:meth:`ResultCache.put_arrays`, only while the table is stored."""
        with self._writing():
            super().put_arrays(key, arrays)

    def put_entry(self, key: str, kind: str, body: bytes, identity: str) -> None:
        """:meth:`ResultCache.put_entry`, only while the table is stored."""
        with self._writing():
            super().put_entry(key, kind, body, identity)


_RESULT_CACHES: dict[Path, _TableResults] = {}


def results_cache(cache: ResultCache, dataset: str) -> ResultCache:
    """The table ``dataset``'s own result cache, in its folder under ``cache``'s directory.

    Only a table's results are kept here; :func:`labeldp_core.data.results_store.results_store`
    says which cache keeps a dataset's results.

    Raises:
        InvalidInputError: if ``dataset`` is not a table's id.
        TableForgottenError: if the table is not stored (it is not created again here).
    """
    root = cache.directory
    folder = _folder(dataset, root) / "results"
    with _tables_lock(root):
        held = _RESULT_CACHES.get(folder)
        if held is None or not held.current():  # none yet, or opened for a forgotten copy
            if held is not None:
                held.close()
            if _folder_identity(folder.parent) is None:
                raise TableForgottenError(
                    f"no table {dataset!r} here (forgotten?): add it again with --dataset "
                    "file:PATH --label COLUMN, or on the app's 'Your data' page"
                )
            _RESULT_CACHES[folder] = held = _TableResults(folder.parent, root)
    return held


def forget_table(table_id: str, root: Path | None = None) -> bool:
    """Delete a table and every result computed from it; whether there was one.

    It waits for a write to the table's results in progress; a point still computing from it
    fails at its next write (:class:`TableForgottenError`) and recreates nothing.
    """
    folder = _folder(table_id, root)
    with _tables_lock(root):
        held = _RESULT_CACHES.pop(folder / "results", None)
        if held is not None:
            held.close()
        if not folder.exists():
            return False
        shutil.rmtree(folder)
    load_dataset.cache_clear()
    return True
