"""Sweeps, warm and audits on a Dask cluster: workers compute, the client checks and stores.

``--workers N`` starts a cluster on this machine; ``--scheduler ADDRESS`` (or
``$LABELDP_SCHEDULER``) uses an existing one; without either everything runs in process. See
:mod:`labeldp_core.cluster.session` (connecting, code-version check),
:mod:`labeldp_core.cluster.worker` (what a worker runs) and :mod:`labeldp_core.cluster.points`
(sending points, storing what returns, failures).

The names of :mod:`~labeldp_core.cluster.points` load on first use: the scheduler imports
:mod:`~labeldp_core.cluster.worker` to read a task, and must not import torch with it.
"""

from importlib import import_module

from labeldp_core.cluster.session import (
    SCHEDULER_ENV,
    ClusterSession,
    ClusterUnavailableError,
    check_scheduler,
    check_workers,
    open_cluster,
)
from labeldp_core.cluster.worker import CodeMismatchError, code_identity

__all__ = [
    "SCHEDULER_ENV",
    "ClusterReport",
    "ClusterSession",
    "ClusterUnavailableError",
    "CodeMismatchError",
    "PointFailure",
    "audit_on_cluster",
    "check_scheduler",
    "check_workers",
    "code_identity",
    "model_audits_on_cluster",
    "open_cluster",
    "refuse_tables",
    "run_on_cluster",
]

_POINTS = (
    "ClusterReport",
    "PointFailure",
    "audit_on_cluster",
    "model_audits_on_cluster",
    "refuse_tables",
    "run_on_cluster",
)


def __getattr__(name: str) -> object:
    if name in _POINTS:
        return getattr(import_module("labeldp_core.cluster.points"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
