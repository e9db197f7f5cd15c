"""Stop signals become an orderly stop, and workers never outlive the process that started them."""

import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from process_watch import family, watch_until_gone

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.experiments.stopping import Stopped, signals_stop, stops_deferred
from labeldp_core.services import release_audits as suite

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
        # The workers are forked by the parent's forkserver (its child, the workers' parent).
        forkservers = [p.pid for p in processes if "forkserver" in " ".join(p.cmdline())]
        workers = [p for p in processes if p.ppid() in forkservers]
        assert len(workers) == 2, [(p.pid, p.ppid(), p.cmdline()) for p in processes]
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


def _stopped(steps: list[str], deferred: bool) -> None:
    """SIGTERM under :func:`signals_stop`, inside :func:`stops_deferred` if ``deferred``."""
    with signals_stop(), stops_deferred() if deferred else contextlib.nullcontext():
        signal.raise_signal(signal.SIGTERM)
        steps.append("went on after the signal")
    steps.append("after the block")


def test_a_stop_inside_stops_deferred_is_raised_at_the_blocks_end():
    # The few calls that start a process and keep its id are not cut in two (forked_workers).
    steps: list[str] = []
    with pytest.raises(Stopped) as stopped:
        _stopped(steps, deferred=True)
    assert steps == ["went on after the signal"] and stopped.value.name == "SIGTERM"
    with pytest.raises(Stopped):  # after the block, a stop is raised at once again
        _stopped(steps, deferred=False)
    assert steps == ["went on after the signal"]


# SIGHUP as under nohup; SIGINT as in a `command &` of a script, which the shell keeps out of
# the terminal's Ctrl+C: a command started so keeps them ignored, as any program does.
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGINT], ids=["SIGHUP", "SIGINT"])
def test_an_ignored_signal_stays_ignored(signum):
    before = signal.signal(signum, signal.SIG_IGN)
    try:
        with signals_stop():
            signal.raise_signal(signum)  # nothing happens
            assert signal.getsignal(signum) is signal.SIG_IGN
    finally:
        signal.signal(signum, before)


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

    planned_after_stop: list[bool] = []  # one entry per planning: was the stop signalled then?
    real_configs = reproduce.computed_configs

    def computed_configs():
        planned_after_stop.append(bool(stopped))
        return real_configs()

    def run(config, cache, progress):
        stopped.append(True)
        signal.raise_signal(signal.SIGINT)

    stopped: list[bool] = []
    monkeypatch.setattr(reproduce, "computed_configs", computed_configs)
    monkeypatch.setattr(reproduce, "run", run)
    assert main(["reproduce", "--compute"]) == 130
    assert planned_after_stop == [False]  # its runs planned before, counted without a new plan
    total = len(real_configs())
    assert total > 0
    assert f"stopped by SIGINT: 0 of {total} points are done and stored" in capsys.readouterr().err


def test_a_stopped_warm_counts_its_points_from_its_own_plan_not_a_new_one(monkeypatch, capsys):
    # The stop's count once re-planned the whole warm from the cache (~500 points, seconds of
    # CPU on a loaded machine) after the workers were gone, holding the exit past its 5 s.
    from labeldp_core.services import warm

    plans = []
    real_plan = warm._plan

    def plan(*args, **kwargs):
        plans.append(args[0])
        return real_plan(*args, **kwargs)

    def drain(pool, workers, waiting, status, *rest):
        status.finished(waiting[0])  # one point done and stored, then SIGTERM arrives
        signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(warm, "_plan", plan)
    monkeypatch.setattr(warm, "_drain", drain)
    assert main(["warm", "--dataset", "digits"]) == 143
    assert plans == ["digits"]  # the warm's own plan; the stop planned nothing
    total = warm.read_status(ResultCache().directory, "digits").total
    assert f"stopped by SIGTERM: 1 of {total} points are done and stored" in capsys.readouterr().err


#: A process that ends by :func:`exit_stopped`: an exit handler, and an object whose deletion
#: says the interpreter's teardown ran (it clears the module's globals).
EXIT_STOPPED = """
import atexit, sys
from labeldp_core.experiments.stopping import exit_stopped

class Teardown:
    def __del__(self):
        print("teardown", flush=True)

kept = Teardown()
atexit.register(lambda: print("exit handler", flush=True))
sys.stdout.write("buffered ")
exit_stopped(143)
"""


def test_a_stopped_command_ends_after_its_exit_handlers_without_the_teardown():
    ended = subprocess.run(
        [sys.executable, "-c", EXIT_STOPPED],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        check=False,
    )
    assert (ended.returncode, ended.stdout) == (143, "buffered exit handler\n")


def test_a_command_a_test_starts_stops_on_sigint():
    # What the SIGINT stop tests of tests/cli/test_stopping.py need: their commands inherit it.
    script = "import time; print('ready', flush=True); time.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "ready\n"
        process.send_signal(signal.SIGINT)
        assert process.wait() == -signal.SIGINT  # ended by it, not 0 after its 60 s
    finally:
        process.kill()
        process.wait()


#: The tests above that stop with SIGINT: in-process, and a command started by the test.
STOPPED_BY_SIGINT = [
    "test_a_stopped_reproduce_names_its_stored_runs",
    "test_a_command_a_test_starts_stops_on_sigint",
]


def test_the_stop_tests_stop_in_a_test_run_started_with_sigint_ignored(tmp_path):
    # `make test > log &` in a script starts the run with SIGINT ignored (the shell keeps a
    # background job out of the terminal's Ctrl+C), and every process it starts inherits that:
    # the SIGINT stop tests then saw no stop at all (issue 52, the clean-clone run).
    tests = [f"{Path(__file__).relative_to(ROOT)}::{name}" for name in STOPPED_BY_SIGINT]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    command += ["--show-capture=no", f"--basetemp={tmp_path / 'run'}", *tests]
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the run from its start
    try:
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, before)
    output = run.communicate()[0]
    assert run.returncode == 0, output[-3000:]
