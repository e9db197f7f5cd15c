import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from labeldp_core.base.threads import (
    THREADS_ENV,
    one_thread_by_default,
    single_thread,
    thread_key_fields,
    torch_threads,
    training_threads,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def threads_restored(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(THREADS_ENV, raising=False)
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_a_process_starts_on_one_thread_unless_the_user_chose():
    environ: dict[str, str] = {}
    one_thread_by_default(environ)
    assert environ == {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    chosen = {"OMP_NUM_THREADS": "4"}
    one_thread_by_default(chosen)
    assert chosen["OMP_NUM_THREADS"] == "4"
    fixed = {THREADS_ENV: "3"}
    one_thread_by_default(fixed)
    assert fixed["OMP_NUM_THREADS"] == fixed["MKL_NUM_THREADS"] == "3"


def test_importing_the_package_before_torch_gives_torch_one_thread():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    code = "import labeldp_core, torch; print(torch.get_num_threads())"
    found = subprocess.run(
        [sys.executable, "-c", code],
        env=env | {"PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == "1"


def test_a_training_runs_on_one_thread_by_default_whatever_the_machine_has(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    torch.set_num_threads(2)
    for _ in range(2):  # the same count every time: nothing counts the trainings alive
        with training_threads():
            assert torch.get_num_threads() == torch_threads() == 1
    assert torch.get_num_threads() == 2  # restored after training
    assert thread_key_fields() == {}  # one thread: the keys results always had


def test_a_count_the_user_fixes_holds_for_every_training_and_keys_its_results(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv(THREADS_ENV, "3")
    with training_threads():
        assert torch.get_num_threads() == torch_threads() == 3
    with single_thread(), training_threads():  # many tiny models in turn: one thread
        assert torch.get_num_threads() == 1
    assert thread_key_fields() == {"torch_threads": 3}
