"""The server's own defaults: no file watcher, trainings in workers, a clean stop on SIGTERM."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from app_sessions import ROOT, Session, served_app

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import lookup, make_config


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("server.fileWatcherType", "none"),  # no watcher walking .venv: half a core when idle
        ("server.address", "127.0.0.1"),  # only this machine, unless a class is served on purpose
        ("client.showErrorDetails", "none"),  # no traceback or server path shown to a visitor
        ("client.showSidebarNavigation", "False"),  # the app draws its own navigation
        ("runner.postScriptGC", "False"),
    ],  # a full collection after every run: 37% of the time
)
def test_the_server_starts_with_the_projects_defaults(option, value):
    # Read the way `streamlit run` reads it: .streamlit/config.toml in the folder it starts in.
    code = f"from streamlit import config; print(config.get_option({option!r}))"
    shown = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert shown == value


def _children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_while_points_train_stops_cleanly_and_keeps_the_cache(tmp_path):
    cache_dir = tmp_path / "cache"
    done = make_config("rr", "digits", 2.0, 0, 1, {"model": "logistic"})
    stored = ResultCache(cache_dir)
    from labeldp_core.experiments import run

    run(done, stored)
    stored.close()
    with served_app(cache_dir, LABELDP_WORKERS="2") as server:

        async def start_training() -> None:
            query = "dataset=digits&epsilon=1"  # on the demo grid: computed without a click
            async with Session(server.port, "randomized_response", query) as session:
                await session.render_until("progress", "epoch")  # a worker trains the point

        asyncio.run(start_training())
        workers = _children(server.process.pid)
        assert workers, "the server computes in worker processes"
        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=120)  # a hang fails here instead of blocking CI
    assert code == 0, f"the server ended with {code} (a negative code is a signal: an abort)"
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers), "worker processes outlived the server"
    reopened = ResultCache(cache_dir)
    assert lookup(done, reopened) is not None  # what was stored before is still readable
    assert os.listdir(cache_dir)
