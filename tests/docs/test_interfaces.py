"""docs/interfaces.md names what the code has: the run JSON's keys, the ids and the commands."""

import re
import subprocess
import sys
from dataclasses import fields

from labeldp_core.data import DATASETS
from labeldp_core.experiments import MECHANISMS, RunResult
from tests.docs.pages import ROOT, docs_hook

PAGE = (ROOT / "docs" / "interfaces.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return PAGE.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_run_json_table_lists_exactly_the_results_keys():
    rows = [line.split("|")[1] for line in _section("The run JSON").splitlines() if "| `" in line]
    documented = set(re.findall(r"`([a-z_]+)`", " ".join(rows)))
    assert documented == {field.name for field in fields(RunResult)}


def test_the_ids_are_the_registered_ones():
    ids = _section("Ids")
    hook = docs_hook()
    assert hook.IDS_MARKER in ids  # the hook writes the registered mechanisms' ids there
    listed = hook.mechanism_ids(hook.families())
    assert all(f"`{mechanism}`" in listed for mechanism in MECHANISMS)
    assert all(f"`{dataset}`" in ids for dataset in DATASETS)


def test_every_command_is_in_the_synopsis():
    done = subprocess.run(
        [sys.executable, "-m", "labeldp_core", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    commands = re.search(r"\{([a-z,]+)\}", done.stdout)[1].split(",")
    synopsis = _section("Command line").split("```text\n", 1)[1].split("```", 1)[0]
    starts = {line.split()[0] for line in synopsis.splitlines() if line and line[0] != " "}
    assert starts == set(commands)
