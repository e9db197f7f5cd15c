"""What a Dask worker runs: one point (or audit case) into a cache of its own, returned as data.

A worker never writes to the client's cache: it computes into a cache folder of its own process
(in its local directory, kept for the process's lifetime so a clean baseline or a public encoder
trained for one point serves the next points of that worker) and returns the
entries the computation read or wrote, as ``(key, type, bytes, identity)`` with JSON text or
``.npz`` bytes and the text the key hashes, for the client to check and store. Arguments arrive
as plain data (a config's dict), never as pickled objects of this package, so a worker running
other code fails the identity check below with a clear message instead of an error unpickling
classes it does not have.
"""

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from labeldp_core import __version__
from labeldp_core.base.threads import THREADS_ENV, fixed_threads, torch_threads
from labeldp_core.cache import ResultCache, code_fingerprint
from labeldp_core.errors import LabelDPError

__all__ = [
    "THREADS_ENV",
    "CodeMismatchError",
    "code_identity",
    "compute_audit_case",
    "compute_model_audit_training",
    "compute_point",
    "refuse_mismatch",
    "task_identity",
]

#: A returned entry: its cache key, ``"json"`` or ``"arrays"``, its bytes, and its identity (the
#: text the key hashes: :func:`~labeldp_core.cache.store.identity_of`; None if it has none,
#: refused).
Entry = tuple[str, str, bytes, str | None]


class CodeMismatchError(LabelDPError):
    """A worker runs another version of the code than the client: its numbers are refused."""


def code_identity() -> dict[str, str]:
    """This process's package version and the fingerprint of all the code it computes with."""
    return {"version": __version__, "code": code_fingerprint()}


def task_identity() -> dict[str, Any]:
    """What a task carries from the client: its code identity and its training thread count.

    A worker trains on the client's count, whatever its own ``LABELDP_TORCH_THREADS``: the count
    is part of a result's key, so a result trained on another count would never be the point
    the client asked for.
    """
    return code_identity() | {"torch_threads": torch_threads()}


def check_identity(expected: dict[str, Any]) -> None:
    """Raise :class:`CodeMismatchError` if this worker's code is not ``expected`` (the client's)."""
    refuse_mismatch("this worker", code_identity(), {k: expected.get(k) for k in code_identity()})


def refuse_mismatch(who: str, theirs: dict[str, str], client: dict[str, str]) -> None:
    """Raise :class:`CodeMismatchError` naming both versions unless ``theirs`` is ``client``."""
    if theirs != client:
        raise CodeMismatchError(
            f"{who} runs {_named(theirs)} but the client runs {_named(client)}: install the "
            "client's code version on every worker (the same checkout or package) and restart it"
        )


def _named(identity: dict[str, str]) -> str:
    return f"labeldp {identity.get('version')} (code {identity.get('code')})"


class _RecordingCache(ResultCache):
    """A cache that remembers every key a computation found or stored."""

    def __init__(self, directory: str) -> None:
        super().__init__(directory)
        self.touched: dict[str, None] = {}  # an ordered set

    def _get(self, key: str, tag: bytes) -> Any:
        found = super()._get(key, tag)
        if found is not None:
            self.touched[key] = None
        return found

    def put_json(self, key: str, value) -> None:
        super().put_json(key, value)
        self.touched[key] = None

    def put_arrays(self, key: str, arrays) -> None:
        super().put_arrays(key, arrays)
        self.touched[key] = None

    @contextmanager
    def recording(self) -> Iterator[dict[str, None]]:
        """Record the keys touched inside the block (found or stored), in order."""
        self.touched = {}
        yield self.touched

    def entries(self, keys: list[str]) -> list[Entry]:
        """``(key, type, bytes, identity)`` of every key in ``keys`` still readable.

        Keys go as plain text (a :class:`~labeldp_core.cache.CacheKey` carries its identity,
        which goes in the entry).
        """
        found = ((str(key), self.entry(key)) for key in keys)
        return [(key, *entry) for key, entry in found if entry is not None]


_LOCAL: _RecordingCache | None = None


def _local_cache() -> _RecordingCache:
    """This worker process's own cache, made on first use.

    It lives in the worker's local directory, which Dask removes with the worker (a killed
    worker's is purged by the next one); outside a worker, in a temporary folder.
    """
    global _LOCAL
    if _LOCAL is None:
        try:
            from distributed import get_worker

            folder = os.path.join(get_worker().local_directory, "labeldp-cache")
        except (ImportError, ValueError):
            folder = tempfile.mkdtemp(prefix="labeldp-worker-")
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _LOCAL = _RecordingCache(folder)
    return _LOCAL


def _torch_threads(client_threads: int) -> None:
    """Train on the client's thread count (:func:`task_identity`), outside training too."""
    os.environ[THREADS_ENV] = str(client_threads)
    import torch

    torch.set_num_threads(fixed_threads() or 1)


def _computed(expected: dict[str, Any], compute: Callable[[ResultCache], Any]) -> list[Entry]:
    check_identity(expected)
    _torch_threads(int(expected.get("torch_threads", 1)))
    cache = _local_cache()
    with cache.recording() as touched:
        compute(cache)
    return cache.entries(list(touched))


def compute_point(config: dict[str, Any], expected: dict[str, str]) -> list[Entry]:
    """Compute one run (``RunConfig.to_dict()``) here; the entries it found or stored.

    Datasets load once per worker process (``load_dataset`` keeps them), and the worker's own
    cache answers what an earlier point of this worker already trained (a clean baseline).
    """
    from labeldp_core.experiments import make_config, run

    def compute(cache: ResultCache) -> None:
        run(
            make_config(
                config["mechanism"],
                config["dataset"],
                config["epsilon"],
                config["seed"],
                config["epochs"],
                config["settings"],
            ),
            cache,
        )

    return _computed(expected, compute)


def compute_audit_case(point: tuple, expected: dict[str, str]) -> list[Entry]:
    """Compute one audit case ``(mechanism, epsilon, index, trials, seed)``; its entries."""
    from labeldp_core.services.release_audits import stored_audit_case

    return _computed(expected, lambda cache: stored_audit_case(*point, cache=cache))


def compute_model_audit_training(task: tuple, expected: dict[str, str]) -> list[Entry]:
    """Compute one training of a model audit ``(point, index)``; its entries.

    ``point`` holds :func:`~labeldp_core.model_audit.audit.audit_model`'s arguments (mechanism,
    dataset, epsilon and its options) and ``index`` picks the training (see ``TRAININGS``).
    """
    from labeldp_core.model_audit.audit import audit_training

    point, index = task
    return _computed(expected, lambda cache: audit_training(**point, index=index, cache=cache))
