"""Worker processes forked from a server process that imported the library once.

The compute service's workers used to start with ``spawn``: every worker a fresh interpreter
importing torch, the families and, on its first optimiser, ``torch._dynamo`` (about 4 s of CPU
each on the 2-core machine, more under load), again for each replacement worker. Here they start
from Python's *forkserver*: one process per parent, started with the first worker, imports those
modules once, before it starts any thread, and forks each worker from there. A forked worker
starts in a few milliseconds and holds nothing of its parent (no thread, no lock, no open
cache): like a spawned one, it starts from the library as imported, and computes the same
numbers, byte for byte.

What a forked worker does not get from the forkserver is its parent's environment now: the
forkserver's is its parent's at the time it started. :func:`environment` taken in the parent and
:func:`adopt_environment` first thing in the worker give it the parent's, as ``spawn`` did (a
``LABELDP_TORCH_THREADS`` or ``LABELDP_DATA_DIR`` set since then reaches it).

The forkserver ends when its parent and every worker it forked are gone, however the parent
ended (it reads the end of a pipe they all hold); the workers end with their parent
(:func:`labeldp_core.experiments.stopping.end_with_parent`). It then exits at once, without the
interpreter's teardown of the modules it imported (3.8 s after its parent was killed, at load
16, past the 5 s a stop may take once the stopped command's own exit is counted): importing
this module first of its preloads registers that exit, in the forkserver alone.

The warm's pool still spawns its workers (two, once per warm): with a forkserver, a warm stopped
just as its pool started (as the stop tests stop one) had a process alive 5.81 s after the
signal in a clean-clone run, past the 5 s a stop may take; the forkserver, still importing,
notices its parent's end only after its imports.
"""

import atexit
import multiprocessing
import os
import sys
from multiprocessing import forkserver
from multiprocessing.context import ForkServerContext

__all__ = ["PRELOAD", "adopt_environment", "environment", "worker_context"]

#: What the forkserver imports before it forks a worker: the workers' entry points (and with them
#: torch and every family) and what a worker's first optimiser imports (``torch.optim`` imports
#: ``torch._dynamo`` on its first call, 1 to 3 s of CPU).
PRELOAD = (
    __name__,
    "labeldp_core.experiments.service",
    "torch._dynamo",
)


def worker_context() -> ForkServerContext:
    """The multiprocessing context worker processes start from (see the module doc)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def environment() -> dict[str, str]:
    """This process's environment now, for a worker to adopt (:func:`adopt_environment`)."""
    return dict(os.environ)


def adopt_environment(environ: dict[str, str]) -> None:
    """In a worker: make ``environ`` (its parent's, from :func:`environment`) this process's."""
    os.environ.clear()
    os.environ.update(environ)


def _preloaded_by_the_forkserver() -> bool:
    """Whether this module is being imported by the forkserver's preload (not a parent's import)."""
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


if _preloaded_by_the_forkserver():
    # The forkserver has nothing to flush or save: its workers are forked processes that end by
    # os._exit, and the modules' teardown is all its exit would do.
    atexit.register(os._exit, 0)
