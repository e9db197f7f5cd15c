"""First render of every page with a warm cache, through Streamlit's AppTest.

Run: ``.venv/bin/python bench/app_speed.py [--dataset digits] [--skip-warm]``. It first runs
``python -m labeldp_core warm`` for the dataset (a no-op when the cache is already warm; long the
first time), then opens every page of ``app.py`` in a fresh AppTest, as a browser opening a link
would, and prints the time of that first render, the slowest page, and the target (1 second).
Streamlit's in-memory caches are cleared before each page, so only the disk cache is warm.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0


def pages() -> list[str]:
    """The page files of the app's navigation, in its order."""
    sys.path.insert(0, str(ROOT))
    from ui.navigation import page_table

    return [entry.file for entry in page_table()]


def first_render(page: str, dataset: str) -> float:
    """Seconds from opening ``page`` by its link to the end of its first script run."""
    st.cache_data.clear()
    st.cache_resource.clear()
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    app.query_params["dataset"] = dataset
    app.run()
    app.switch_page(page)
    start = time.perf_counter()
    app.run()
    elapsed = time.perf_counter() - start
    if app.exception:
        raise SystemExit(f"{page} raised: {app.exception[0].value}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="digits")
    parser.add_argument("--skip-warm", action="store_true", help="do not run `warm` first")
    args = parser.parse_args()
    if not args.skip_warm:
        subprocess.run(
            [sys.executable, "-m", "labeldp_core", "warm", "--dataset", args.dataset],
            cwd=ROOT,
            check=True,
        )
    first_render(pages()[0], args.dataset)  # imports and Streamlit start-up, not measured
    times = {page: first_render(page, args.dataset) for page in pages()}
    for page, seconds in times.items():
        flag = "" if seconds < TARGET_S else "  <- above target"
        print(f"{page:<32} {seconds:6.3f} s{flag}")
    slowest = max(times, key=times.get)
    print(
        f"median {statistics.median(times.values()):.3f} s; slowest {slowest} "
        f"{times[slowest]:.3f} s (target < {TARGET_S:g} s each)"
    )


if __name__ == "__main__":
    main()
