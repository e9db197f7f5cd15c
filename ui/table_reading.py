"""Uploaded tables on a shared server: read or prepared one at a time, each parsed once.

A class may upload at once, and a million-row file takes 2 to 3 GB while it is read or
prepared (``bench/table_speed.py``). So the server reads or prepares one table at a time, the
others waiting with a message that says so, and keeps at most :data:`MAX_PARSED` parsed tables
in memory, shared by every session that shows the same file, instead of one per session.
"""

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from labeldp_core.data.tables import read_table

__all__ = ["MAX_PARSED", "ParsedTable", "forget_parsed", "one_at_a_time", "parsed_table"]

#: Parsed tables kept for the sessions to share (the least recently shown goes first).
MAX_PARSED = 4
_SLOT = threading.Lock()  # the server's one slot for reading or preparing a table
_KEPT_LOCK = threading.Lock()
_KEPT: OrderedDict[str, "ParsedTable"] = OrderedDict()
_DIGEST = "your_data_digest"


@dataclass(frozen=True)
class ParsedTable:
    """A parsed file and its columns' summary; shared between sessions, so never changed."""

    frame: pd.DataFrame
    #: One row per column: its name, its type and how many distinct values it holds.
    columns: pd.DataFrame


@contextmanager
def one_at_a_time(doing: str) -> Iterator[None]:
    """Hold the server's one slot for a table; while another session has it, say so and wait."""
    if not _SLOT.acquire(blocking=False):
        with st.spinner(f"Another table is being {doing} on this server; yours is next..."):
            _SLOT.acquire()
    try:
        yield
    finally:
        _SLOT.release()


def parsed_table(data: bytes) -> ParsedTable:
    """The table in ``data``, parsed once on this server whichever sessions show it.

    Raises:
        LabelDPError: as :func:`~labeldp_core.data.tables.read_table` (nothing is kept).
    """
    digest = _digest(data)
    with _KEPT_LOCK:
        if digest in _KEPT:
            _KEPT.move_to_end(digest)
            return _KEPT[digest]
    with one_at_a_time("read"):
        frame = read_table(data)
        columns = pd.DataFrame(
            {
                "column": frame.columns.astype(str),
                "type": frame.dtypes.astype(str).to_numpy(),
                "distinct values": frame.nunique().to_numpy(),
            }
        )
    parsed = ParsedTable(frame, columns)
    with _KEPT_LOCK:
        _KEPT[digest] = parsed
        while len(_KEPT) > MAX_PARSED:
            _KEPT.popitem(last=False)
    return parsed


def forget_parsed() -> None:
    """Drop every parsed table kept (a forgotten table's file must not linger in memory)."""
    with _KEPT_LOCK:
        _KEPT.clear()


def _digest(data: bytes) -> str:
    """The sha256 of ``data``, computed once per file in a session (not on every rerun)."""
    found = st.session_state.get(_DIGEST)
    if found is None or found[0] is not data:
        st.session_state[_DIGEST] = (data, hashlib.sha256(data).hexdigest())
    return st.session_state[_DIGEST][1]
