"""The two-command promise: `make test` installs all its tests read, and CI runs it from nothing."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


def test_make_test_installs_the_datasets_and_the_browser_before_the_suite_runs():
    # -n prints the commands without running them; -o takes the virtualenv as made.
    command = ["make", "-n", "-o", ".venv/.requirements-dev", "-o", ".venv/.requirements", "test"]
    planned = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    suite = planned.index("-m pytest")
    steps = ("install -y -qq dataset-fashion-mnist", "DATA_CHECK", "install -y -qq chromium")
    for step in steps:
        assert -1 < planned.find(step) < suite, f"`make test` does not run {step!r} first"


def test_ci_runs_make_test_with_an_empty_home_and_no_project_variables(tmp_path: Path):
    fake = tmp_path / "bin"
    fake.mkdir()
    seen = tmp_path / "seen"
    (fake / "make").write_text(
        "#!/bin/sh\n"
        f'{{ echo "$@"; echo "$HOME"; ls -A "$HOME" | wc -l; '
        f'echo "${{LABELDP_DATA_DIR-unset}} ${{LABELDP_CACHE_DIR-unset}}"; }} > {seen}\n'
    )
    (fake / "make").chmod(0o755)
    env = os.environ | {
        "PATH": f"{fake}:{os.environ['PATH']}",
        "HOME": str(ROOT),
        "LABELDP_DATA_DIR": "/somewhere",
        "LABELDP_CACHE_DIR": "/elsewhere",
    }
    subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, check=True, timeout=60)
    target, home, entries, variables = seen.read_text().splitlines()
    assert target == "test"
    assert home != str(ROOT) and entries == "0", "CI's HOME must be new and empty"
    assert not Path(home).exists(), "CI's temporary HOME is removed afterwards"
    assert variables == "unset unset"


def test_the_suite_keeps_its_bytecode_whatever_the_shell_says(tmp_path: Path):
    # With PYTHONDONTWRITEBYTECODE=1 inherited, pytest rewrote every test module's asserts again
    # in each worker (collecting: 28.5 s of CPU instead of 18.4 s). No recipe may inherit it.
    probe = tmp_path / "probe.mk"
    recipe = '\t@echo "[$$PYTHONDONTWRITEBYTECODE]"\n'
    probe.write_text(f"include {ROOT / 'Makefile'}\nprobe:\n{recipe}")
    env = os.environ | {"PYTHONDONTWRITEBYTECODE": "1"}
    said = subprocess.run(
        ["make", "-s", "-f", str(probe), "probe"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert said.returncode == 0, said.stderr
    assert said.stdout.strip() == "[]", said.stdout
