import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch

from labeldp_core import threads
from labeldp_core.threads import (
    THREADS_ENV,
    one_thread_by_default,
    single_thread,
    trainer_share,
    training_threads,
)

ROOT = Path(__file__).resolve().parents[1]
HOLD_A_SLOT = """
import sys
from labeldp_core.threads import _trainer_slot
with _trainer_slot():
    print("holding", flush=True)
    sys.stdin.readline()
"""


@pytest.fixture(autouse=True)
def own_slots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Slots in a folder of the test's own, so other processes on the machine do not count."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv(THREADS_ENV, raising=False)
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@contextmanager
def another_trainer(tmp_path: Path) -> Iterator[None]:
    """A second process holding a trainer slot until the block ends."""
    env = os.environ | {"TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_SLOT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == "holding"
        yield
    finally:
        process.communicate("\n", timeout=60)


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


def test_a_trainer_alone_takes_every_core_and_shares_them_with_another(tmp_path: Path):
    assert trainer_share(cores=4) == 4  # nobody holds a slot: the share of one trainer
    with threads._trainer_slot():
        assert trainer_share(cores=4) == 4
        with another_trainer(tmp_path):
            assert trainer_share(cores=4) == 2
            assert trainer_share(cores=1) == 1
        assert trainer_share(cores=4) == 4  # the other one's slot is free again


def test_training_threads_follow_the_model_the_cap_and_the_fixed_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    torch.set_num_threads(1)
    with training_threads("mlp"):
        assert torch.get_num_threads() == 1  # gains nothing from threads
    with training_threads("cnn") as refresh:
        assert torch.get_num_threads() == 2  # alone on 2 cores
        with another_trainer(tmp_path):
            refresh()
            assert torch.get_num_threads() == 1
        refresh()
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == 1  # restored after training
    with single_thread(), training_threads("cnn"):
        assert torch.get_num_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "3")
    with training_threads("mlp"):
        assert torch.get_num_threads() == 3
