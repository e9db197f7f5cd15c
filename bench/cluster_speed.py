"""Cluster speed: a fixed part of the digits demo set in process vs on a Dask cluster.

Run: ``.venv/bin/python bench/cluster_speed.py``. In one run on this machine, the same twelve
points (rr, laplace and rr-prior at epsilon 0.5, 1, 2 and 4, the demo set's settings, seed 0):

1. in this process (torch on every core, as ``sweep`` runs them);
2. on ``--workers 2``: a LocalCluster of 2 worker processes with one torch thread each;
3. the cluster path's own cost per point: the same points with seed 1 sent one at a time, the
   time from sending a point to having it checked and stored minus the time the worker spent
   computing it (its ``elapsed_s``); target: at most 5% of a median point's time;
4. on a cluster started with the stock commands (``dask scheduler``, ``dask worker --nworkers 2
   --nthreads 1``) with seed 2, sampling the scheduler process's resident memory.

Prints points per minute for each, the overhead and the scheduler's memory. Points are
independent, so on a machine with more cores (or more machines) the time of a sweep would
divide by the number of workers, up to the number of points, while each point keeps its time.
"""

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from labeldp_core.cache import ResultCache  # noqa: E402
from labeldp_core.cluster import open_cluster, run_on_cluster  # noqa: E402
from labeldp_core.experiments import RunConfig, run  # noqa: E402
from labeldp_core.experiments.demo import demo_configs  # noqa: E402

MECHANISMS, EPSILONS = ("rr", "laplace", "rr-prior"), (0.5, 1.0, 2.0, 4.0)
#: Every cache this benchmark makes, removed at its end (made in main(): the cluster's worker
#: processes import this file too).
WORK = Path()


def points(seed: int) -> list[RunConfig]:
    """The fixed subset of the digits demo set, at ``seed``."""
    first = {}
    for config in demo_configs("digits"):  # the first of each pair (more settings may follow)
        if config.mechanism in MECHANISMS and config.epsilon in EPSILONS and config.seed == 0:
            first.setdefault((config.mechanism, config.epsilon), config)
    assert len(first) == len(MECHANISMS) * len(EPSILONS), sorted(first)
    return [replace(config, seed=seed) for config in first.values()]


def per_minute(count: int, seconds: float) -> str:
    return f"{count} points in {seconds:6.1f} s = {60 * count / seconds:5.1f} points/min"


def in_process(configs: list[RunConfig]) -> float:
    cache = ResultCache(tempfile.mkdtemp(prefix="bench-local-", dir=WORK))
    started = time.perf_counter()
    for config in configs:
        run(config, cache)
    return time.perf_counter() - started


def on_cluster(session, configs: list[RunConfig]) -> float:
    cache = ResultCache(tempfile.mkdtemp(prefix="bench-client-", dir=WORK))
    started = time.perf_counter()
    report = run_on_cluster(session, configs, cache)
    assert not report.failures, report.summary()
    return time.perf_counter() - started


def overhead(session, configs: list[RunConfig]) -> tuple[float, float]:
    """Median seconds the cluster path adds to a point, and the median point's own seconds."""
    cache = ResultCache(tempfile.mkdtemp(prefix="bench-client-", dir=WORK))
    added, computing = [], []
    for config in configs:
        started = time.perf_counter()
        (result,) = run_on_cluster(session, [config], cache).results
        added.append(time.perf_counter() - started - result.elapsed_s)
        computing.append(result.elapsed_s)
    return statistics.median(added), statistics.median(computing)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stock_cluster(configs: list[RunConfig]) -> None:
    """``dask scheduler`` and ``dask worker`` processes; the scheduler's memory around a sweep."""
    import psutil

    address = f"tcp://127.0.0.1:{free_port()}"
    dask = [sys.executable, "-m"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT}
    env = os.environ | {"LABELDP_TORCH_THREADS": "1", "PYTHONPATH": str(ROOT)}
    scheduler = subprocess.Popen(
        [
            *dask,
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            address.rsplit(":", 1)[1],
            "--no-dashboard",
        ],
        env=env,
        **quiet,
    )
    workers = subprocess.Popen(
        [
            *dask,
            "distributed.cli.dask_worker",
            address,
            "--nworkers",
            "2",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        env=env,
        **quiet,
    )
    try:
        time.sleep(3)
        session = open_cluster(scheduler=address)
        session.client.wait_for_workers(2, timeout=120)
        before = psutil.Process(scheduler.pid).memory_info().rss / 2**20
        seconds = on_cluster(session, configs)
        after = psutil.Process(scheduler.pid).memory_info().rss / 2**20
        session.close()
    finally:
        workers.terminate()
        scheduler.terminate()
        workers.wait(60)
        scheduler.wait(60)
    print(f"stock dask scheduler + 2 workers:   {per_minute(len(configs), seconds)}")
    print(f"scheduler resident memory: {before:.0f} MB idle, {after:.0f} MB after the sweep")


def main() -> None:
    global WORK
    WORK = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        measure()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


def measure() -> None:
    """Each of the four measurements, printed as it is done."""
    local = in_process(points(0))
    print(f"in process ({os.cpu_count()} torch threads): {per_minute(12, local)}")
    started = time.perf_counter()
    with open_cluster(workers=2) as session:
        print(f"LocalCluster of 2 workers started in {time.perf_counter() - started:.1f} s")
        remote = on_cluster(session, points(0))
        print(f"LocalCluster, 2 workers x 1 thread: {per_minute(12, remote)}")
        print(f"ratio, cluster / in process (time): {remote / local:.2f}")
        added, median_point = overhead(session, points(1))
    print(
        f"cluster path's cost per point: {added:.3f} s against a median point of "
        f"{median_point:.2f} s computing = {100 * added / median_point:.1f}% (target <= 5%)"
    )
    stock_cluster(points(2))


if __name__ == "__main__":
    main()
