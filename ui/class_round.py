"""The teacher's side of a class round of Guess the label, and the round store every session shares.

The teacher opens a round at the top of the *Class round* page (``pages/play.py``, the page the
phones open too); the panel shows a QR code, the round's code and its link in type readable from
the back of a room, the live tally (every few seconds) and, once revealed, the hits against the
bound and each item's truth. The rounds live in one :class:`RoundStore` per server
process (``st.cache_resource``), so a phone's session and the teacher's see the same round.
"""

import io
import os
import socket
from contextlib import suppress
from urllib.parse import urlparse

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.base.numbers import epsilon_text
from labeldp_core.classroom import (
    RoundConfig,
    RoundStore,
    Tally,
    UnknownRoundError,
    draw_items,
    epsilon_spent,
)
from labeldp_core.classroom.plots import item_tally_figure
from labeldp_core.classroom.round import MAX_ITEMS
from labeldp_core.data import Dataset
from labeldp_core.errors import InvalidInputError
from ui.epsilon import EPSILON_RANGE
from ui.export import chart, csv_button

__all__ = ["class_round", "overall_rows", "round_link", "round_store"]

#: The teacher's session remembers the code of the round it opened and the token that runs it
#: (held by this session only: no other visitor can reveal or end the round), or why none opened.
_CODE = "_class_round_code"
_TEACHER = "_class_round_teacher"
_PROBLEM = "_class_round_problem"
#: How often the teacher's tally is read again, in seconds.
REFRESH_S = 2.0
#: Set this to the address phones use (e.g. behind a reverse proxy): the link is built on it.
CLASS_URL_VARIABLE = "LABELDP_CLASS_URL"
_LOOPBACK = {"localhost", "127.0.0.1", "::1", ""}
#: The round's code and link, readable from the back of a room (over 40 px, demo mode or not).
_LARGE_TYPE = """<style>
.stApp .st-key-round_link p {font-size: 2.75rem; line-height: 1.2; margin: 0;
  overflow-wrap: anywhere;}
.stApp .st-key-round_code p {font-size: 4rem; line-height: 1.1; margin: 0; font-weight: 700;
  letter-spacing: 0.1em;}
</style>"""
#: How the panel names each mechanism of a round.
_RELEASED_BY = {
    "rr": "randomized response",
    "rr-prior": "RR with a public prior (the phones show each image)",
}


@st.cache_resource
def round_store() -> RoundStore:
    """The one store of this server process: every session (teacher or phone) reads it."""
    return RoundStore()


def _network_address() -> str | None:
    """This machine's address on the local network (a UDP socket's own end; nothing is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
    except OSError:
        return None


def round_link(code: str) -> tuple[str, str]:
    """The link phones open for round ``code``, and a note when it is not the teacher's own.

    The link is the address the teacher's browser used, unless that is this machine's loopback
    (which no phone reaches): then this machine's network address, with a note.
    """
    configured = os.environ.get(CLASS_URL_VARIABLE, "").strip()
    if configured:
        return f"{configured.rstrip('/')}/play?round={code}", ""
    url = urlparse(st.context.url or "http://localhost:8501/")
    host, note = url.hostname or "", ""
    if host in _LOOPBACK:
        found = _network_address()
        if found:
            note = (
                f"This page is open as {host or 'localhost'}, which phones cannot reach; the "
                f"link uses this machine's network address {found} (serve it with "
                "`make classroom`)."
            )
            host = found
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme or 'http'}://{host}{port}/play?round={code}", note


@st.cache_data(max_entries=32)
def qr_png(link: str) -> bytes | None:
    """The QR code of ``link`` as a PNG (segno, pure Python); None if segno is not installed."""
    try:
        import segno
    except ImportError:  # an environment installed before segno joined requirements.txt
        return None
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def _open_round(dataset: Dataset, epsilon: float, items: int, image: bool) -> None:
    config = RoundConfig(
        epsilon, dataset.name, dataset.class_names, items, "rr-prior" if image else "rr"
    )
    try:
        keys = round_store().create(config, *draw_items(dataset, config))
    except InvalidInputError as error:  # a class with too few examples, a server full of rounds
        st.session_state[_PROBLEM] = str(error)
        return
    st.session_state[_CODE], st.session_state[_TEACHER] = keys.code, keys.teacher


def _reveal_round(code: str) -> None:
    with suppress(UnknownRoundError):  # it expired meanwhile: the tally says it has ended
        round_store().reveal(code, st.session_state[_TEACHER])


def _end_round(code: str) -> None:
    with suppress(UnknownRoundError):  # it expired meanwhile: nothing left to forget
        round_store().end(code, st.session_state[_TEACHER])
    st.session_state.pop(_CODE, None)


def _opener(dataset: Dataset, epsilon: float) -> None:
    """The controls that open a round on the sidebar's dataset, at ``epsilon`` unless changed."""
    chosen, left, right = st.columns(3)
    epsilon = chosen.number_input(
        "ε of the round",
        *EPSILON_RANGE,
        value=epsilon,
        step=0.5,
        format="%g",
        key="round_epsilon",
        bind="query-params",
    )
    items = left.number_input(
        "Items in the round", 1, MAX_ITEMS, 20, key="round_items", bind="query-params"
    )
    image = right.checkbox(
        "Show the image (RR with prior)",
        key="round_image",
        bind="query-params",
        help="The label is released by RR with a public prior read off the image's nearest "
        "public neighbours, and the phones show the image: what a public input adds.",
    )
    problem = st.session_state.pop(_PROBLEM, None)
    if problem:
        st.error(f"No round was opened: {problem}")
    st.button(
        f"Open a round for the class at ε = {epsilon:g}",
        key="round_open",
        on_click=_open_round,
        args=(dataset, float(epsilon), int(items), bool(image)),
        type="primary",
    )


def overall_rows(tally: Tally) -> list[tuple[str, float, float, float]]:
    """The overall tally as (name, rate, low, high) rows for :func:`plots.tally_figure`.

    The class's vote (its commonest answer on each item) is one guess per item, and the items are
    the independent draws, so its Clopper-Pearson interval is exact. Every answer pooled is shown
    without one: answers to one item share its one release, so they are not independent trials.
    """
    low, high = tally.vote_interval()
    return [
        (f"the class's vote ({tally.voted_items} items)", tally.vote_rate, low, high),
        (f"every answer ({tally.answers})", tally.rate, tally.rate, tally.rate),
    ]


def _round_header(code: str, tally: Tally) -> DeltaGenerator:
    """The QR code, the code and link in large type, and what the round is.

    Returns the QR code's column, whose room under the code takes the round's buttons.
    """
    config = tally.config
    link, note = round_link(code)
    qr, text = st.columns([1, 2])
    png = qr_png(link)
    if png is None:
        qr.caption("No QR code: install the requirements again (`make run` does) for segno.")
    else:
        qr.image(png, width=260, caption=f"Round {code}")
    text.html(_LARGE_TYPE)
    text.markdown("**Phones: scan the QR code or open the link** (or type the code on this page)")
    with text.container(key="round_address"):
        st.container(key="round_code").markdown(code)
        st.container(key="round_link").markdown(link)
    if note:
        text.caption(note)
    text.markdown(
        f"Round **{code}**: {config.items} labels of {config.dataset} released by "
        f"{_RELEASED_BY[config.mechanism]} at ε = {config.epsilon:g} (secure coins, "
        f"ε spent {epsilon_text(epsilon_spent(config), config.epsilon)} per label, replace-one "
        "label DP). No account; each phone gets a random seat and answers each item once."
    )
    return qr


@st.fragment(run_every=REFRESH_S)
def _live_tally(code: str) -> None:
    """The tally, read again every REFRESH_S seconds: the votes, then the hits once revealed."""
    store = round_store()
    if not store.is_open(code):
        st.info("This round has ended.")
        return
    tally = store.tally(code)
    if tally.revealed:
        _revealed_tally(code, tally)
        return
    st.caption(
        f"{_phones(tally.seats)}, {tally.answers} answers. Right and wrong are counted at the "
        "reveal: until then this shows only how many answered and what they chose, so no one "
        f"can work a true label out of it. The reveal draws the class's hits against "
        f"{_bound_words(tally)}."
    )
    live = [{k: v for k, v in row.items() if k not in ("true", "right")} for row in tally.rows()]
    st.dataframe(live, hide_index=True)


def _phones(seats: int) -> str:
    """'1 phone', '3 phones'."""
    return f"{seats} phone" if seats == 1 else f"{seats} phones"


def _revealed_tally(code: str, tally: Tally) -> None:
    """The revealed round: the hit rates against the bound, overall and per item, the table."""
    left, right = st.columns(2)
    with left:
        figure = plots.tally_figure(overall_rows(tally), tally.bound)
        if tally.config.mechanism != "rr":  # the class sees the image: it can pass this bound
            figure.update_annotations(text=f"bound with the public prior: {tally.bound:.3f}")
        chart(st, figure, key="round_tally")
        low, high = tally.vote_interval()
        st.caption(
            f"{_phones(tally.seats)}, {tally.answers} answers, {tally.hits} right "
            f"({tally.rate:.0%}). The class's vote was right on {tally.vote_hits} of "
            f"{tally.voted_items} items; 95% Clopper-Pearson interval {low:.2f}-{high:.2f}, over "
            f"the items. Dashed: {_bound_words(tally)}."
        )
    with right:
        chart(st, item_tally_figure, tally.items, tally.bound, key="round_items_chart")
        st.caption(
            "One item is one release: when it kept the label, the class can all be right; "
            "when it flipped, all wrong. The bound holds on average, over the items."
        )
    st.dataframe(tally.rows(), hide_index=True)
    csv_button(tally.rows(), f"class-round-{code}.csv", key="round_export")


def _bound_words(tally: Tally) -> str:
    config = tally.config
    if config.mechanism == "rr":
        return (
            f"e^ε/(e^ε + K − 1) = {tally.bound:.3f}, the most any guess of a label released by "
            "RR can reach with a uniform prior (each item's class was drawn uniformly)"
        )
    return (
        f"{tally.bound:.3f}, the bound for a guesser who knows the public prior the mechanism "
        f"used (RR alone: {config.uniform_bound:.3f}); the class also sees the image, so it can "
        "beat it: ε bounds what the release adds to what the image already tells"
    )


def class_round(dataset: Dataset, epsilon: float) -> bool:
    """The teacher's panel: open a round (at ``epsilon`` unless changed), or run the open one.

    The open round is this session's: its link, the live tally, reveal and end. Returns whether
    this session runs a round.
    """
    store = round_store()
    code = st.session_state.get(_CODE)
    if code is not None and not store.is_open(code):
        st.session_state.pop(_CODE, None)
        code = None
    if code is None:
        _opener(dataset, epsilon)
    else:
        _open_panel(store, code)
    return code is not None


def _open_panel(store: RoundStore, code: str) -> None:
    """The open round: its link and QR code, the buttons, the live tally."""
    tally = store.tally(code)
    buttons = _round_header(code, tally)  # under the QR code: on the first screen
    if not tally.revealed:
        buttons.button(
            "Reveal the true labels",
            key="round_reveal",
            on_click=_reveal_round,
            args=(code,),
            type="primary",
        )
    buttons.button("End the round (forget it)", key="round_end", on_click=_end_round, args=(code,))
    _live_tally(code)
