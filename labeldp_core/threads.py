"""Torch threads sized to the machine, so that the project's processes never fight for the cores.

Two torch processes that each run both cores of a 2-core machine slow each other about ten times
(OpenMP threads spinning against each other), where one thread each finishes both in the time of
one (``bench/parallel_points.py``). The rule here:

- Every process starts on one thread: importing :mod:`labeldp_core` sets ``OMP_NUM_THREADS=1``
  (and MKL's) before torch starts its pools, unless the user set them.
- A process that trains a model large enough to gain from more threads (the CNNs) holds a
  *trainer slot* (a lock file per slot, ``flock``: a crashed process releases its own) and runs on
  the machine's cores divided by the trainers alive now, re-checked every epoch: alone it takes
  every core; a second trainer arriving brings both back to their share within one epoch.
- ``LABELDP_TORCH_THREADS=N`` fixes the count for a process and its children.
"""

import contextlib
import contextvars
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "GAINS_FROM_THREADS",
    "THREADS_ENV",
    "fixed_threads",
    "one_thread_by_default",
    "single_thread",
    "trainer_share",
    "training_threads",
]

#: Fixes the torch threads of a process (and of the processes it starts).
THREADS_ENV = "LABELDP_TORCH_THREADS"
#: Models whose training gains from a second core when the machine is free (measured: the digits
#: CNN 1.3x; the MLP and logistic models gain nothing and lose when the cores are shared).
GAINS_FROM_THREADS = frozenset({"cnn", "cnn_tanh"})
#: The most trainers counted at once (slot files tried in turn).
MAX_TRAINERS = 64
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


def _slots_dir() -> Path:
    folder = Path(tempfile.gettempdir()) / f"labeldp-trainers-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _try_lock(path: Path) -> int | None:
    """An open descriptor holding ``path``'s exclusive lock, or None if another process holds it."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


def _live_trainers(folder: Path) -> int:
    """How many slot files other processes hold now."""
    held = 0
    for path in folder.glob("slot-*"):
        descriptor = _try_lock(path)
        if descriptor is None:
            held += 1
        else:
            os.close(descriptor)
    return held


def trainer_share(cores: int | None = None) -> int:
    """A trainer's threads: the cores divided among the trainers holding a slot now (itself too)."""
    cores = cores or os.cpu_count() or 1
    return max(1, cores // max(1, _live_trainers(_slots_dir())))


@contextlib.contextmanager
def _trainer_slot() -> Iterator[None]:
    """Hold a free slot file while the block runs (none is held if all are taken)."""
    folder = _slots_dir()
    descriptor = None
    for index in range(MAX_TRAINERS):
        descriptor = _try_lock(folder / f"slot-{index}")
        if descriptor is not None:
            break
    try:
        yield
    finally:
        if descriptor is not None:
            os.close(descriptor)


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
def training_threads(model: str) -> Iterator[Callable[[], None]]:
    """Train ``model`` on the threads the rule gives; yields ``refresh``, to call every epoch.

    Every training holds a trainer slot, so that it is counted; only a model that gains from
    threads takes more than one, and not inside :func:`single_thread`. A count fixed by
    ``LABELDP_TORCH_THREADS`` is kept as it is.
    """
    import torch

    before = torch.get_num_threads()
    fixed = fixed_threads()
    cap = 1 if model not in GAINS_FROM_THREADS else _CAP.get()

    def refresh() -> None:
        wanted = fixed if fixed is not None else min(cap, trainer_share())
        if wanted != torch.get_num_threads():
            torch.set_num_threads(wanted)

    with _trainer_slot():
        refresh()
        try:
            yield refresh
        finally:
            torch.set_num_threads(before)
