"""The app on a Dask cluster: with ``$LABELDP_SCHEDULER`` set, missing points are computed there.

Without it nothing changes (the server's worker processes, or the page's own thread compute).
The client stores each point as it returns (see :mod:`labeldp_core.cluster`); the sidebar says
where points are computed, with the cluster's workers and a link to Dask's dashboard.
"""

import os

import streamlit as st

from labeldp_core.cache import ResultCache
from labeldp_core.cluster import SCHEDULER_ENV, ClusterSession, open_cluster, run_on_cluster
from labeldp_core.engine.progress import Progress
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, RunResult
from labeldp_core.experiments.service import JobFailedError

__all__ = ["cluster", "cluster_panel", "run_on_the_cluster"]


def _scheduler() -> str | None:
    return os.environ.get(SCHEDULER_ENV) or None


@st.cache_resource(show_spinner=False)
def _session(address: str) -> ClusterSession:
    """One client per server process and scheduler (a refused connection is not kept)."""
    return open_cluster(scheduler=address)


def cluster() -> ClusterSession | None:
    """The cluster that computes missing points, or None when no scheduler is set.

    Raises:
        LabelDPError: the scheduler does not answer, has no worker, or runs other code.
    """
    address = _scheduler()
    return None if address is None else _session(address)


def run_on_the_cluster(
    session: ClusterSession, configs: list[RunConfig], cache: ResultCache, progress: Progress
) -> list[RunResult]:
    """Compute ``configs`` on the cluster, stored as each returns; a failed point raises."""
    report = run_on_cluster(session, configs, cache, progress)
    if report.failures:
        failed = "; ".join(f"{f.point}: {f.error}" for f in report.failures)
        raise JobFailedError(f"{len(report.failures)} point(s) failed on the cluster: {failed}")
    return report.results


def cluster_panel() -> None:
    """Say in the sidebar that points are computed on the cluster (nothing without one)."""
    address = _scheduler()
    if address is None:
        return
    try:
        session = cluster()
        workers = len(session.workers())
    except LabelDPError as exc:
        st.sidebar.warning(f"Dask cluster at {address}: {exc}")
        return
    link = f" · [dashboard]({session.dashboard})" if session.dashboard else ""
    st.sidebar.caption(
        f"Missing points are computed on the Dask cluster at {address}: {workers} "
        f"worker{'s' if workers != 1 else ''}{link}."
    )
