"""Debian's Chromium driven by Playwright for Python: installed with apt-get if missing, never
downloaded by ``playwright install``; one launch per test process (``tests/conftest.py``)."""

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
#: ``--process-per-site``: the tabs of one site (every server of the tests is on 127.0.0.1) share
#: one renderer process within a browser context, so a page opened beside another page of the
#: same server finds the app's scripts compiled in that process (V8's cache) instead of parsing
#: and compiling them in a new process: a Streamlit page opened so took about 3 s of Chromium's
#: CPU instead of about 5.5 s (issue 52). Contexts never share a process.
CHROMIUM_ARGS = [
    "--process-per-site",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def ensure_chromium() -> None:
    """Install Debian's chromium package if its binary is missing."""
    if Path(CHROMIUM).exists():
        return
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        subprocess.run(sudo + command, check=True, env=env, capture_output=True)


@contextmanager
def chromium_browser() -> Iterator:
    """Debian's Chromium launched through Playwright (installed first if missing).

    Playwright's sync API runs one driver per thread: a second ``sync_playwright`` while one is
    open fails, so the tests share the one that ``tests/conftest.py`` opens.
    """
    from playwright.sync_api import sync_playwright

    ensure_chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
