"""Every ``python -m labeldp_core`` command in the docs' shell blocks runs and exits 0.

As dp-wizard tests the code its docs show: a block a test cannot run cheaply says why in a
``<!-- not run: reason -->`` comment just before it; every other one runs here, in document
order, on an empty cache of its own (the page's runs share it, as a reader's would).
"""

import os
import subprocess

import pytest

from tests.docs.pages import PAGES, ROOT, argv, blocks

RUNNABLE = [page for page in PAGES if any(b.commands() and not b.not_run for b in blocks(page))]


def _name(page) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_command_block_is_a_shell_block_run_here_or_says_why_not(page):
    for block in blocks(page):
        if block.not_run:
            assert block.language == "sh" and block.commands(), f"a stale marker in {page}"
        elif block.commands() and block.language != "text":  # text: a synopsis with placeholders
            assert block.language == "sh", f"{page}: commands in a ```{block.language} block"


def test_the_docs_show_commands_that_run_and_some_that_are_marked():
    marked = [b for page in PAGES for b in blocks(page) if b.not_run]
    assert len(RUNNABLE) >= 3 and marked


@pytest.mark.slow  # tens of seconds: each page trains its models
@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_every_shell_command_exits_0(page, tmp_path):
    environment = os.environ | {"PYTHONPATH": str(ROOT), "LABELDP_OFFLINE": "1"}
    for block in blocks(page):
        for line in [] if block.not_run or block.language != "sh" else block.commands():
            done = subprocess.run(
                argv(line), cwd=tmp_path, env=environment, capture_output=True, text=True
            )
            assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
