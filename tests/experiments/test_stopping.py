"""Stop signals become an orderly stop, and workers never outlive the process that started them."""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from process_watch import family, watch_until_gone

from labeldp_core.__main__ import main
from labeldp_core.audit import suite
from labeldp_core.experiments.stopping import Stopped, signals_stop

ROOT = Path(__file__).resolve().parents[2]
#: A worker must be gone this long after its parent was killed (the contract of a stop).
GONE_WITHIN_S = 5.0

#: Parents that start two workers the way ``warm`` and the app's server do, wait until both
#: compute (past their start), say "ready" and wait. Run as a script: the pool's task is its own.
PARENTS = {
    "warm's pool": """
import os, sys, time
from pathlib import Path
from labeldp_core.services.warm import _pool

def busy(folder):
    Path(folder, str(os.getpid())).touch()
    time.sleep(600)

if __name__ == "__main__":
    pool = _pool(sys.argv[1], 2)
    running = [pool.submit(busy, sys.argv[2]) for _ in range(2)]
    while len(os.listdir(sys.argv[2])) < 2:
        time.sleep(0.05)
    print("ready", flush=True)
    time.sleep(600)
""",
    "the app's compute service": """
import sys, time
from labeldp_core.experiments import make_config
from labeldp_core.experiments.service import ComputeService

if __name__ == "__main__":
    service = ComputeService(sys.argv[1], workers=2)
    jobs = [service.submit(make_config("rr", "digits", e, 0, 300)) for e in (1.0, 2.0)]
    while not all(job.worker for job in jobs):
        time.sleep(0.05)
    print("ready", flush=True)
    time.sleep(600)
""",
}


@pytest.mark.parametrize("parent", PARENTS)
def test_computing_workers_end_when_their_parent_is_killed_outright(parent, tmp_path):
    script, started = tmp_path / "parent.py", tmp_path / "started"
    script.write_text(PARENTS[parent])
    started.mkdir()
    process = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "cache"), str(started)],
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout.readline() == "ready\n"
        processes = family(process.pid)
        workers = [p for p in processes if "spawn_main" in " ".join(p.cmdline())]
        assert len(workers) == 2, [p.cmdline() for p in processes]
    finally:
        os.kill(process.pid, signal.SIGKILL)  # no handler, no clean-up: only the workers act
    elapsed, left = watch_until_gone(processes, 30.0, reap=process.poll)
    assert not left and elapsed <= GONE_WITHIN_S, (left, elapsed)


def test_a_stop_signal_raises_stopped_and_the_handlers_before_come_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped) as stopped, signals_stop():
        signal.raise_signal(signal.SIGTERM)
    assert (stopped.value.name, stopped.value.exit_status) == ("SIGTERM", 143)
    assert isinstance(stopped.value, KeyboardInterrupt)  # Ctrl+C's clean-up runs for it too
    assert signal.getsignal(signal.SIGTERM) is before


def test_an_ignored_signal_stays_ignored():
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with signals_stop():
            signal.raise_signal(signal.SIGHUP)  # nothing happens
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_outside_the_main_thread_nothing_is_installed():
    seen = []

    def other() -> None:
        with signals_stop():
            seen.append(signal.getsignal(signal.SIGTERM))

    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [before]


def test_a_stopped_audit_names_its_stored_cases_and_a_second_run_computes_only_the_rest(
    monkeypatch, capsys
):
    computed = []
    real = suite.audit_case

    def audit_case(*point):
        if len(computed) == 1 and not stopped:  # the second case: SIGTERM arrives meanwhile
            stopped.append(True)
            signal.raise_signal(signal.SIGTERM)
        computed.append(point[2])
        return real(*point)

    stopped: list[bool] = []
    monkeypatch.setattr(suite, "audit_case", audit_case)
    command = ["audit", "pate", "--epsilon", "1", "--trials", "2000"]
    assert main(command) == 143
    assert "stopped by SIGTERM: 1 of 4 points are done and stored" in capsys.readouterr().err
    assert main(command) == 0
    assert computed == [0, 1, 2, 3]  # case 0 was found, not computed again


def test_a_stopped_reproduce_names_its_stored_runs(monkeypatch, capsys):
    from labeldp_core.services import reproduce

    def run(config, cache, progress):
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(reproduce, "run", run)
    assert main(["reproduce", "--compute"]) == 130
    total = len(reproduce.computed_configs())
    assert total > 0
    assert f"stopped by SIGINT: 0 of {total} points are done and stored" in capsys.readouterr().err
