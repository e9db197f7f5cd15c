"""``--workers N`` and ``--scheduler ADDRESS``: the commands that can compute on a Dask cluster."""

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext

from labeldp_core.cli.shared import EXIT_POINTS_FAILED
from labeldp_core.cluster import SCHEDULER_ENV, ClusterReport, open_cluster, refuse_tables
from labeldp_core.experiments import RunConfig


def cluster_session(args: argparse.Namespace, configs: Sequence[RunConfig] = ()):
    """The cluster the options ask for (a context manager), or a null context for none.

    Points on a table of the user's own are refused before a cluster starts or is reached.
    """
    if wants_cluster(args):
        refuse_tables(configs)
    session = open_cluster(args.workers, args.scheduler)
    if session is None:
        return nullcontext()
    workers = session.workers()
    print(
        f"Dask cluster: {len(workers)} workers; dashboard {session.dashboard or 'not served'}",
        file=sys.stderr,
    )
    return session


def wants_cluster(args: argparse.Namespace) -> bool:
    """Whether a command that can use a cluster is asked to (options or $LABELDP_SCHEDULER)."""
    if not hasattr(args, "workers"):
        return False
    return (
        args.workers is not None
        or args.scheduler is not None
        or bool(os.environ.get(SCHEDULER_ENV))
    )


def reported(report: ClusterReport) -> int:
    """Print a cluster run's counts and failures on stderr; the exit status they mean."""
    print(report.summary(), file=sys.stderr)
    return EXIT_POINTS_FAILED if report.failures else 0


def cluster_options(sub: argparse.ArgumentParser) -> None:
    """``--workers N`` and ``--scheduler ADDRESS`` on a command that can use a cluster."""
    sub.add_argument(
        "--workers",
        metavar="N",
        help="compute on a Dask cluster of N worker processes started on this machine",
    )
    sub.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"compute on the Dask cluster at ADDRESS, e.g. tcp://HOST:8786 (default: "
        f"${SCHEDULER_ENV} if set; without either, everything runs in this process)",
    )
