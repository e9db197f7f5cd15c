"""Worker processes forked from a server process that imported the library once.

The compute service's workers and the warm's pool used to start with ``spawn``: every worker a
fresh interpreter importing torch, the families and, on its first ``torch.optim`` optimiser,
``torch._dynamo`` (about 4 s of CPU each on the 2-core machine, more under load), again for each
replacement worker and each new pool. Here they start from Python's *forkserver*: one process per
parent, started by :func:`worker_context`, imports those modules once, before it starts any thread,
and forks each worker from there. A forked worker starts in a few milliseconds and holds nothing of
its parent (no thread, no lock, no open cache): like a spawned one, it starts from the library as
imported, and computes the same numbers, byte for byte.

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

But it reads that pipe only once its imports are done (4 s of CPU and more): a command stopped
while its forkserver still imports ends it itself (:func:`end_forkserver`), which it can only if
it kept the forkserver's id. A real stop pinned at each step of a warm's pool start found one
step where it was not kept: a stop that lands while Python starts the forkserver (its ``fork``
and ``exec``, before ``forkserver.ensure_running`` keeps the id) left the forkserver importing
its whole preload, 10.6 to 15.6 s after the signal at load 5 to 7, SIGINT and SIGTERM alike; a
stop at any other step left no process alive after 0.3 s. That window is probably what a
clean-clone run of the stop tests met, a warm's process alive 5.81 s after its stop (the window
lasts milliseconds; that run's processes were not recorded). :func:`worker_context` therefore
starts the forkserver with a stop held until its id is kept
(:func:`labeldp_core.experiments.stopping.stops_deferred`). A worker forked just before a stop,
whose id its pool had not kept yet, ends with its parent once it watches it
(:func:`~labeldp_core.experiments.stopping.end_with_parent`): at once, as the forkserver has
imported what such a worker imports first (:data:`PRELOAD`).
"""

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
from multiprocessing import forkserver
from multiprocessing.context import ForkServerContext

from labeldp_core.experiments.stopping import stops_deferred

__all__ = ["PRELOAD", "adopt_environment", "end_forkserver", "environment", "worker_context"]

#: What the forkserver imports before it forks a worker: the workers' entry points, torch (which
#: they import on their first point) and the command line (a worker of ``python -m labeldp_core``
#: imports its main module first). Not ``torch._dynamo``, which a ``torch.optim`` optimiser or
#: ``torch.func`` imports on first use: it made each forkserver's start 1.0 to 1.4 s of CPU
#: longer (5.0 to 5.6 s against 3.7 to 4.3 s, three runs each on the 2-core machine beside a
#: test run), and only LabelDP-Pro's points (``torch.func``) and DP-SGD with Adam need it now
#: (:mod:`~labeldp_core.training.fused_adam`, :mod:`~labeldp_core.training.direct_sgd`): a
#: worker that computes one imports it then.
PRELOAD = (
    __name__,
    "labeldp_core.experiments.service",
    "labeldp_core.services.warm",
    "labeldp_core.cli",
    "torch",
)


def worker_context() -> ForkServerContext:
    """The multiprocessing context worker processes start from, its forkserver started.

    A stop signal that comes while the forkserver starts is held until its id is kept, so that
    :func:`end_forkserver` can end it (see the module doc).
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    with stops_deferred():
        forkserver.ensure_running()
    return context


def environment() -> dict[str, str]:
    """This process's environment now, for a worker to adopt (:func:`adopt_environment`)."""
    return dict(os.environ)


def adopt_environment(environ: dict[str, str]) -> None:
    """In a worker: make ``environ`` (its parent's, from :func:`environment`) this process's."""
    os.environ.clear()
    os.environ.update(environ)


def end_forkserver() -> None:
    """End this process's forkserver now, if it started one: a stopped command's last process.

    Once its workers are ended, the forkserver ends by itself, but only after its imports: a
    stop that comes while it still imports them (a warm stopped as its pool starts) would leave
    it alive for seconds. Killing it loses nothing (it holds no data); a worker started later
    starts a new one. It also frees the command's exit: multiprocessing waits there for a worker
    started but not yet kept by its pool (a stop between the two), and hears of its end from the
    forkserver, at once once the forkserver is gone.
    """
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


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
