"""The Class round page: the teacher's panel, and a phone's released label and buttons.

Opened from the menu, its top is the teacher's panel (open a round, then its QR code, code and
link, live tally, reveal), with a box below for a typed code. Opened from the teacher's QR code
(``?round=CODE``), it is a phone's: each phone takes a seat (a random token, in this session and
the link, so a reload keeps it) and answers each item once; it sees only what was released and
its own answers until the teacher reveals the true labels, then (switched by itself) how many it
answered and how many of those were right. A phone that comes after the reveal gets no seat.
"""

import re

import numpy as np
import streamlit as st

from labeldp_core.classroom import Answer, RoundOverError, SeatView, UnknownRoundError
from labeldp_core.classroom.round import CODE_ALPHABET
from labeldp_core.data import load_dataset
from labeldp_core.errors import InvalidInputError
from ui.class_round import class_round, round_store
from ui.controls import current_controls
from ui.epsilon import shown_epsilon

#: Big buttons a thumb finds: the answers' container is styled by its key. A touch screen keeps
#: ``:hover`` where the last tap was, so the next item's button on that spot would look chosen
#: (darker): where nothing hovers, a hovered answer looks as one at rest (the theme's primary
#: red, #C53948), and only a press darkens it. Streamlit keeps a button a rerun replaced on screen
#: (``data-retained``) until the run ends, sometimes longer: a phone would show the last item's
#: button beside the next one's, there to be tapped twice; it is hidden.
_STYLE = """<style>
.st-key-answers button {min-height: 4.2rem;}
.st-key-answers [data-retained] {display: none;}
.st-key-answers button p {font-size: 1.5rem;}
.st-key-answers [data-testid='stHorizontalBlock'] {flex-wrap: nowrap; gap: 0.75rem;}
.st-key-answers [data-testid='stColumn'] {min-width: 0; width: auto; flex: 1 1 0;}
.st-key-released [data-testid='stMetricValue'] {font-size: 3.5rem;}
@media (hover: none) {
  .stApp .st-key-answers button:hover:not(:active) {background-color: #C53948;
    border-color: #C53948;}
}
</style>"""
_PIXELS = 200  # an image's side on a phone
_WAIT_S = 3.0  # how often a phone asks whether the reveal came
#: Seats one browser session may take, over all rounds: a lesson's rounds, not a script's.
MAX_JOINS = 10


def _typed_code() -> None:
    """A box for a round's code, for a laptop that opened the page from the menu."""
    typed = st.text_input("Joining a round? Its code (on the teacher's screen)", max_chars=8)
    if typed.strip():
        st.query_params["round"] = typed.strip().upper()
        st.rerun()
    st.caption("Scan the QR code your teacher shows, or type the round's code.")


def _seat(code: str) -> str | None:
    """This phone's seat in round ``code``: kept in the session and the link, else a new one.

    None, with the reason shown, when no seat is given: the round is full, or this session
    already joined :data:`MAX_JOINS` rounds (a cap on what one visit, or a script, can take).
    """
    store = round_store()
    seats = st.session_state.setdefault("_class_round_seats", {})
    for token in (seats.get(code), st.query_params.get("seat")):
        if token and store.has_seat(code, token):
            break
    else:
        token = _join(code)
        if token is None:
            return None
    seats[code] = token
    st.query_params["seat"] = token
    return token


def _join(code: str) -> str | None:
    """A new seat in round ``code``, counted against this session's joins; None if refused."""
    joins = st.session_state.get("_class_round_joins", 0)
    refused = (
        f"this browser tab has joined {MAX_JOINS} rounds, the most one visit may. Ask your teacher."
        if joins >= MAX_JOINS
        else None
    )
    if refused is None:
        try:
            token = round_store().join(code)
        except RoundOverError:
            st.info("The round is over: the teacher has revealed the true labels.")
            return None
        except InvalidInputError as error:  # the round is full
            refused = str(error)
    if refused is not None:
        st.warning(f"You cannot join this round: {refused}")
        return None
    st.session_state["_class_round_joins"] = joins + 1
    return token


def _answer(code: str, token: str, number: int, guess: int) -> None:
    outcome = round_store().answer(code, token, number, guess)
    if outcome is not Answer.COUNTED:
        st.session_state["_class_round_refused"] = outcome.value


def _image(view: SeatView, index: int) -> None:
    image = np.asarray(load_dataset(view.config.dataset).x_train[index][0])
    scale = max(1, _PIXELS // image.shape[0])
    st.image(np.kron(image, np.ones((scale, scale))), clamp=True)


@st.fragment
def _questions(code: str, token: str) -> None:
    """The next item: its released label (and image), one button per class.

    A fragment: a tap reruns only this, not the app around it (the sidebar, the navigation),
    which keeps a class of phones quick on one laptop; the last answer reruns the whole page.
    """
    refused = st.session_state.pop("_class_round_refused", None)
    if refused:
        st.warning(f"That answer was not counted: {refused}.")
    try:
        view = round_store().seat_view(code, token)
    except UnknownRoundError:
        st.rerun(scope="app")
    question = view.next_question
    if view.revealed or question is None:
        st.rerun(scope="app")
    config = view.config
    st.caption(f"Item {question.number} of {config.items} · ε = {config.epsilon:g}")
    with st.container(key="released"):
        st.metric("Released label", config.class_names[question.released_label])
    if question.image_index is not None:
        _image(view, question.image_index)
    st.markdown("**What was the true label?**")
    with st.container(key="answers"):
        for label, name in enumerate(config.class_names):
            if label % 2 == 0:  # rows of two, kept side by side on a phone (the style above)
                columns = st.columns(2)
            columns[label % 2].button(
                name,
                key=f"answer_{question.number}_{label}",
                on_click=_answer,
                args=(code, token, question.number, label),
                type="primary",
                width="stretch",
            )


@st.fragment(run_every=_WAIT_S)
def _watch_for_reveal(code: str, token: str, *, all_answered: bool) -> None:
    """Ask every few seconds whether the teacher revealed: then the whole page shows the result.

    It runs beside the questions too, so a phone mid-round switches at the reveal by itself.
    """
    try:
        revealed = round_store().seat_view(code, token).revealed
    except UnknownRoundError:
        revealed = True  # the round ended: the full run says so
    if revealed:
        st.rerun(scope="app")
    if all_answered:
        st.info("All answered. The true labels come when your teacher reveals them.")


def _reveal(view: SeatView) -> None:
    """This phone's score and each item's truth beside its own answer."""
    names = view.config.class_names
    st.subheader(
        f"You answered {view.answered} of {len(view.questions)} items: {view.score} of them right"
        if view.answered
        else f"You answered none of the {len(view.questions)} items"
    )
    image = (
        " You also saw each image, which can tell more: ε bounds what the release adds to it."
        if view.config.mechanism == "rr-prior"
        else ""
    )
    st.caption(
        f"No guess from the released label alone can beat {view.config.uniform_bound:.0%} on "
        f"average at ε = {view.config.epsilon:g}: e^ε/(e^ε + K − 1), K = {len(names)}.{image}"
    )
    rows = [
        {
            "item": q.number,
            "released": names[q.released_label],
            "you": "" if q.your_answer is None else names[q.your_answer],
            "true": names[truth],
        }
        for q, truth in zip(view.questions, view.true_labels, strict=True)
    ]
    st.dataframe(rows, hide_index=True)


def render() -> None:
    """The page: the teacher's panel, or a phone's next question, its wait, or the reveal."""
    controls = current_controls()  # the sidebar (folded away on a phone), a link's refusals
    st.title("Class round")
    st.html(_STYLE)
    code = st.query_params.get("round", "").strip().upper()
    if not code:
        if not class_round(load_dataset(controls.dataset), shown_epsilon()):
            _typed_code()
        return
    store = round_store()
    if not re.fullmatch(f"[{CODE_ALPHABET}]{{1,8}}", code) or not store.is_open(code):
        st.warning("No open round has this code: it has ended, or check the code.")
        return
    token = _seat(code)
    if token is None:
        return
    view = store.seat_view(code, token)
    if view.revealed:
        _reveal(view)
    else:
        if view.next_question is not None:
            _questions(code, token)
        _watch_for_reveal(code, token, all_answered=view.next_question is None)


render()
