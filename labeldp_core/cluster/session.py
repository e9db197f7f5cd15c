"""Connecting to a Dask cluster: a local one (``--workers N``) or an existing scheduler.

``--workers N`` starts a ``distributed.LocalCluster`` of N worker processes with one task at a
time each, the machine's cores shared among their trainings (:mod:`labeldp_core.base.threads`);
``--scheduler ADDRESS`` (or ``$LABELDP_SCHEDULER``) connects to a cluster started with the
stock ``dask scheduler`` and ``dask worker`` commands. Every worker must run the client's code
version: a worker that does not is refused before any point is sent (and each task checks again,
for workers that join later), so a stale worker never fills the cache with numbers from other
code.
"""

import asyncio
import contextlib
import os
import re
import signal
import socket
from dataclasses import dataclass

from labeldp_core.cluster.worker import (
    CodeMismatchError,
    code_identity,
    refuse_mismatch,
)
from labeldp_core.errors import InvalidInputError

__all__ = [
    "CONNECT_TIMEOUT_S",
    "SCHEDULER_ENV",
    "ClusterSession",
    "ClusterUnavailableError",
    "check_scheduler",
    "check_workers",
    "open_cluster",
]

#: The scheduler's address when ``--scheduler`` is not given.
SCHEDULER_ENV = "LABELDP_SCHEDULER"
#: How long to try reaching a scheduler before saying it does not answer.
CONNECT_TIMEOUT_S = 5.0
#: Seconds a local worker is given to end on a stop signal before its nanny kills it.
STOP_GRACE_S = 0.5
#: The most local worker processes ``--workers`` starts.
MAX_LOCAL_WORKERS = 256
_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})")


class ClusterUnavailableError(InvalidInputError):
    """No scheduler answered at the address given."""


def check_workers(value: object) -> int:
    """``--workers``: a whole number of local worker processes, 1..MAX_LOCAL_WORKERS."""
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_LOCAL_WORKERS:
        raise InvalidInputError(
            f"--workers must be a whole number of worker processes in 1..{MAX_LOCAL_WORKERS}, "
            f"got {value!r}; leave it out to compute in this process"
        )
    return int(text)


def check_scheduler(address: object) -> str:
    """``--scheduler``: ``tcp://HOST:PORT`` or ``tls://HOST:PORT`` (``HOST:PORT`` means tcp)."""
    text = str(address).strip()
    if "://" not in text:
        text = f"tcp://{text}"
    match = _ADDRESS.fullmatch(text)
    if match is None or not 1 <= int(match.group(3)) <= 65535:
        raise InvalidInputError(
            f"--scheduler must be a Dask scheduler's address like tcp://HOST:8786 (or "
            f"tls://HOST:PORT), got {address!r}"
        )
    return text


@dataclass
class ClusterSession:
    """A Dask client (and the local cluster it started, if any); close it when done."""

    client: object
    local_cluster: object | None = None

    @property
    def dashboard(self) -> str | None:
        """The address of Dask's dashboard, if the scheduler serves one."""
        return getattr(self.client, "dashboard_link", None)

    def workers(self) -> dict[str, int]:
        """Each worker's address and how many tasks it runs at once."""
        return dict(self.client.nthreads())

    def check_workers_code(self) -> None:
        """Refuse the cluster if its scheduler or a worker runs another code version than this.

        The scheduler reads each task (it imports the task's function), so it needs this code
        too.
        """
        ours = code_identity()
        try:
            identities = self.client.run(code_identity)
            identities["scheduler"] = self.client.run_on_scheduler(code_identity)
        except Exception as exc:  # the worker or the scheduler could not even import this package
            raise CodeMismatchError(
                f"the cluster could not run labeldp's code ({type(exc).__name__}: {exc}): start "
                "the scheduler and every worker from a checkout of the client's version with "
                "PYTHONPATH set to it (`make scheduler`, `make worker SCHEDULER=...` do)"
            ) from None
        for address, theirs in identities.items():
            who = "the scheduler" if address == "scheduler" else f"worker {address}"
            refuse_mismatch(who, theirs, ours)

    def close(self, *, now: bool = False) -> None:
        """Disconnect, and stop the local cluster if this session started one.

        ``now`` (a stop signal): its workers get :data:`STOP_GRACE_S` to end, not Dask's 4 s,
        before they are killed (a point cut off is not stored). A session whose event loop Dask
        already closed (the last of its users stopped it) cannot talk to its cluster any more:
        its local workers are killed instead.
        """
        if self.client.loop.asyncio_loop.is_closed():
            self._kill_local_workers()
            self.client.status = "closed"  # nothing left to close: its deletion must not try
            return
        self.client.close()
        if self.local_cluster is not None:
            if now:
                nannies = list(self.local_cluster.workers.values())
                self.local_cluster.sync(_close_nannies, nannies, STOP_GRACE_S)
            self.local_cluster.close()

    def _kill_local_workers(self) -> None:
        """Kill the worker processes of the local cluster, if any, without Dask's help."""
        if self.local_cluster is None:
            return
        for nanny in self.local_cluster.workers.values():
            process = nanny.process and nanny.process.process
            if process is not None and process.pid is not None:
                _kill_and_reap(process.pid)

    def __enter__(self) -> "ClusterSession":
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(now=kind is not None and issubclass(kind, KeyboardInterrupt))


def _kill_and_reap(pid: int) -> None:
    """Kill process ``pid`` and reap it if it is this process's child; gone already is fine."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


async def _close_nannies(nannies: list, grace_s: float) -> None:
    """Close the local workers' nannies at once, each killing its worker after ``grace_s``.

    A kill whose process is not reaped in time (a loaded machine) is left to the cluster's close.
    """
    closing = (nanny.close(timeout=grace_s) for nanny in nannies)
    await asyncio.gather(*closing, return_exceptions=True)


def open_cluster(
    workers: int | None = None,
    scheduler: str | None = None,
    *,
    env: dict[str, str] | None = None,
) -> ClusterSession | None:
    """A session on a new local cluster or an existing one; None to compute in this process.

    ``workers`` starts a local cluster (its worker processes get ``env`` on top of this one's);
    ``scheduler`` (else ``$LABELDP_SCHEDULER``) connects to an existing one, which must have a
    worker within CONNECT_TIMEOUT_S; with neither, None.

    Raises:
        InvalidInputError: both given, or a malformed value.
        ClusterUnavailableError: no scheduler answered, or it has no worker.
        CodeMismatchError: a worker runs another code version.
    """
    scheduler = scheduler if scheduler is not None else os.environ.get(SCHEDULER_ENV) or None
    if workers is not None and scheduler is not None:
        raise InvalidInputError(
            "give --workers (a cluster on this machine) or --scheduler (an existing one), not "
            f"both (the scheduler may come from ${SCHEDULER_ENV})"
        )
    if workers is not None:
        session = _local_session(check_workers(workers), env or {})
    elif scheduler is not None:
        session = _remote_session(check_scheduler(scheduler))
    else:
        return None
    try:
        session.check_workers_code()
    except BaseException:
        session.close()
        raise
    return session


def _local_session(workers: int, env: dict[str, str]) -> ClusterSession:
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        env=env,
        silence_logs=40,
    )
    return ClusterSession(Client(cluster), cluster)


def _remote_session(address: str) -> ClusterSession:
    from distributed import Client

    try:
        _probe(address)  # a refused port fails at once, where Dask would retry until its timeout
        client = Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailableError(
            f"no Dask scheduler answered at {address} within {CONNECT_TIMEOUT_S:g} s "
            f"({_reason(exc)}): start one with `dask scheduler` and workers with `dask worker`, "
            "or leave --scheduler (and $LABELDP_SCHEDULER) out to compute here"
        ) from None
    except Exception as exc:  # it answered, but not in Dask's protocol (another service)
        raise ClusterUnavailableError(
            f"what answered at {address} is not a Dask scheduler this Dask version can talk to "
            f"({type(exc).__name__}): check the address and port (a scheduler listens on 8786 "
            "unless told otherwise) and that client and cluster run the same Dask version"
        ) from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except TimeoutError:
        client.close()
        raise ClusterUnavailableError(
            f"the Dask scheduler at {address} has no worker: start some with `dask worker "
            f"{address}` (on each machine, in a checkout of this code with `make data` run)"
        ) from None
    return ClusterSession(client)


def _probe(address: str) -> None:
    """Open and close a TCP connection to the scheduler's host and port."""
    host, port = _ADDRESS.fullmatch(address).group(2, 3)
    with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
        pass


def _reason(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
