"""Torch threads fixed by the configuration, so that a result never depends on the machine's load.

Float sums change with the number of threads that compute them, so a training's thread count is
part of what it computes: the same point trained on one thread and on two gives two different
models. The rule here:

- Every process starts on one thread: importing :mod:`labeldp_core` sets ``OMP_NUM_THREADS=1``
  (and MKL's) before torch starts its pools, unless the user set them.
- A training runs on :func:`torch_threads` threads: ``LABELDP_TORCH_THREADS`` if the user set
  it, else 1. The count is fixed before the training starts and never changes while it runs,
  whatever else runs on the machine; every result records it (``details.torch_threads``) and a
  count other than 1 is part of every cache key (:func:`thread_key_fields`), so results computed
  on different counts are never mixed.
- Parallelism comes from computing points side by side, one thread each (``warm``, the app's
  compute service, Dask workers): two processes that each run both cores of a 2-core machine
  slow each other about ten times (``bench/parallel_points.py``).
"""

import contextlib
import contextvars
import os
from collections.abc import Iterator

__all__ = [
    "THREADS_ENV",
    "fixed_threads",
    "one_thread_by_default",
    "single_thread",
    "thread_key_fields",
    "torch_threads",
    "training_threads",
]

#: Fixes the torch threads of a process (and of the processes it starts).
THREADS_ENV = "LABELDP_TORCH_THREADS"
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
#: The most threads a training may take here (1 inside :func:`single_thread`).
_CAP: contextvars.ContextVar[int] = contextvars.ContextVar("labeldp_thread_cap", default=1 << 16)


def one_thread_by_default(environ: dict[str, str] | None = None) -> None:
    """Start this process (and its children) on one thread unless the user chose otherwise."""
    environ = os.environ if environ is None else environ
    fixed = environ.get(THREADS_ENV)
    for name, value in _ONE_THREAD.items():
        environ.setdefault(name, fixed if fixed else value)


def fixed_threads() -> int | None:
    """The thread count ``LABELDP_TORCH_THREADS`` fixes, or None when it is not set."""
    value = os.environ.get(THREADS_ENV, "").strip()
    return max(1, int(value)) if value.isdigit() else None


def torch_threads() -> int:
    """The threads a training runs on: ``LABELDP_TORCH_THREADS`` if set, else 1."""
    return fixed_threads() or 1


def thread_key_fields() -> dict[str, int]:
    """What a cache key adds for the thread count: nothing for 1, else ``{"torch_threads": n}``.

    Results computed on one thread keep the keys they always had; any other count keys its own.
    """
    threads = torch_threads()
    return {} if threads == 1 else {"torch_threads": threads}


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """Run torch on one thread inside the block, training included (many tiny models in turn)."""
    import torch

    before = torch.get_num_threads()
    token = _CAP.set(1)
    torch.set_num_threads(1)
    try:
        yield
    finally:
        _CAP.reset(token)
        torch.set_num_threads(before)


@contextlib.contextmanager
def training_threads() -> Iterator[None]:
    """Run the block (a training, or a whole run) on :func:`torch_threads` threads.

    The count is set once, on entry, and the previous one restored on exit; inside
    :func:`single_thread` it is 1.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(min(_CAP.get(), torch_threads()))
    try:
        yield
    finally:
        torch.set_num_threads(before)
