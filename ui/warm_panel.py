"""Warm in the app: which pages are ready for a class, the points and the time left; a start button.

A teacher opens the home page before class and sees whether the demo set of the dataset chosen in
the sidebar is cached; if not, one button starts ``warm`` in the background (not in read-only
mode). While it runs, the panel and a line in the sidebar follow it every few seconds.
"""

import streamlit as st

from labeldp_core.data import DATASETS
from labeldp_core.experiments import MECHANISMS
from labeldp_core.services.warm import (
    AUDIT_PAGE,
    WarmStatus,
    coverage,
    duration_text,
    left_text,
    read_status,
    start_warm,
)
from ui.results import read_only, result_cache

__all__ = ["running_warm", "warm_button", "warm_panel", "warm_sidebar_line"]

#: Seconds between two looks at a running warm's status.
_REFRESH_S = 5


def _page_name(page: str) -> str:
    return "Privacy audit" if page == AUDIT_PAGE else MECHANISMS[page].title


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "a time not known yet (nothing of the kind was computed here)"
    return duration_text(seconds)


@st.cache_data(ttl=30, show_spinner=False)
def _stored_coverage(cache_dir: str, dataset: str) -> WarmStatus:
    return coverage(dataset, cache_dir)


def running_warm(dataset: str) -> WarmStatus | None:
    """The status of a warm of ``dataset`` running now on this server's cache, else None."""
    status = read_status(result_cache().directory, dataset)
    return status if status is not None and status.running() else None


def _pages_table(status: WarmStatus) -> None:
    rows = [
        {"page": _page_name(page), "first view": f"{done}/{total}", "ready": done == total}
        for page, (done, total) in status.pages.items()
    ]
    st.dataframe(rows, hide_index=True, width="stretch")


#: Said while a warm runs once every page's first view is ready (issue 52).
LINES_READY = (
    "Every page draws all its lines (seed 0): a class can start. The warm goes on with the "
    "slider's stops, then seeds 1 and 2, which draw each curve's band, then the model audits."
)
#: The same from a ``warm --until-pages``, which leaves the bands and model audits for later.
LINES_READY_UNTIL_PAGES = (
    "Every page draws all its lines (seed 0): a class can start. This warm stops after the "
    "slider's stops: seeds 1 and 2, which draw each curve's band, and the model audits wait "
    "for a warm without --until-pages."
)


def _show_running(status: WarmStatus) -> None:
    st.progress(
        status.done / max(1, status.total),
        text=f"Warming {status.dataset}: {status.done} of {status.total} points done; "
        f"{left_text(status)}",
    )
    if status.pages and status.first_views_ready() == len(status.pages):
        leaves = status.later or status.later_bands
        st.success(LINES_READY_UNTIL_PAGES if leaves else LINES_READY)


def _show_stored(status: WarmStatus, dataset: str) -> None:
    if status.state == "finished":
        st.success(f"Every page's demo points for {dataset} are cached: no page will wait.")
        return
    st.info(
        f"{status.done} of {status.total} demo points for {dataset} are cached. A warm computes "
        f"the other {status.total - status.done} on every core: {left_text(status)}."
    )
    if read_only():
        st.caption("This server is read-only: warm it from its command line (`make warm`).")
    elif dataset not in DATASETS:
        st.caption(
            "A table of your own is warmed from the command line: `python -m "
            "labeldp_core warm --dataset file:PATH --label COLUMN`."
        )
    else:
        warm_button(st, dataset, f"Warm the cache for {dataset}", key="start_warm")


@st.fragment(run_every=_REFRESH_S)
def _panel_body(dataset: str) -> None:
    running = running_warm(dataset)
    status = running or _stored_coverage(str(result_cache().directory), dataset)
    if running is not None:
        _show_running(running)
    else:
        _show_stored(status, dataset)
    with st.expander("Pages ready for a class"):
        _pages_table(status)


def warm_panel(dataset: str) -> None:
    """The home page's section on the cache: ready pages, points and time left, a start button."""
    st.subheader("Ready for a class?")
    _panel_body(dataset)


def warm_sidebar_line(dataset: str) -> None:
    """One line in the sidebar while a warm of ``dataset`` runs."""
    status = running_warm(dataset)
    if status is not None:
        st.sidebar.caption(
            f"Warming {dataset}: {100 * status.done / max(1, status.total):.0f}% done, "
            f"{_duration(status.seconds_left)} left."
        )


def warm_button(container, dataset: str, label: str, key: str) -> None:
    """A button in ``container`` that starts ``warm`` for ``dataset`` in the background.

    While a warm of ``dataset`` runs, a line saying so instead (the sidebar follows it).
    """
    if running_warm(dataset) is not None:
        container.caption(f"Warming {dataset}: the sidebar follows it.")
    elif container.button(label, key=key, type="primary"):
        start_warm(dataset, result_cache().directory)
        st.rerun()
