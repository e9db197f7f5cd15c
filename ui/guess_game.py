"""Guess the label, as a class: the released label is shown, the class guesses, the tally grows.

The state (the round drawn, its number, the tally, the guess) lives in the session, so each
browser playing keeps its own game; a new epsilon or dataset starts a new tally, since the bound
it is compared with changes. Each round is drawn from :mod:`secrets` when it starts and kept in
the session: its number on screen counts rounds, it does not choose them.
"""

import numpy as np
import streamlit as st

from labeldp_core import plots
from labeldp_core.classroom.guessing import GuessTally, draw_round, output_distributions
from labeldp_core.data import Dataset
from ui.export import chart

__all__ = ["guess_game"]

_STATE = "_guess_game"
_PIXELS = 160  # the hidden image's side once revealed


def _state(dataset: Dataset, epsilon: float) -> dict:
    state = st.session_state.get(_STATE)
    game = (dataset.name, epsilon)
    if state is None or state["game"] != game:
        state = {
            "game": game,
            "round": -1 if state is None else state["round"],
            "tally": GuessTally(0, 0, epsilon, dataset.num_classes),
        }
        _next_round(state, dataset)
        st.session_state[_STATE] = state
    return state


def _guessed(state: dict, guess: int, truth: int) -> None:
    state["guess"] = guess
    state["tally"] = state["tally"].add(guess == truth)


def _next_round(state: dict, dataset: Dataset) -> None:
    """Draw the next round (fresh from :mod:`secrets`) and forget the last guess."""
    state["drawn"] = draw_round(dataset.y_train, dataset.num_classes, state["game"][1])
    state["round"] += 1
    state["guess"] = None


def _reset(state: dict, dataset: Dataset) -> None:
    tally = state["tally"]
    state["tally"] = GuessTally(0, 0, tally.epsilon, tally.num_classes)
    _next_round(state, dataset)


def _buttons(state: dict, names: tuple[str, ...], truth: int) -> None:
    """One button per class, in rows of five in class order (a phone stacks them row by row)."""
    width = min(len(names), 5)
    for label, name in enumerate(names):
        if label % width == 0:
            columns = st.columns(width)
        columns[label % width].button(
            name,
            key=f"guess_{label}",
            on_click=_guessed,
            args=(state, label, truth),
            width="stretch",
        )


def guess_game(dataset: Dataset, epsilon: float) -> None:
    """Draw one round of the game, the class's tally against the bound, and RR's two outputs."""
    state = _state(dataset, epsilon)
    names = dataset.class_names
    game_round = state["drawn"]
    left, right = st.columns(2)
    left.metric(f"Released label (round {state['round'] + 1})", names[game_round.released_label])
    if state["guess"] is None:
        left.caption("What was the true label? The image stays hidden until you guess.")
        with left:
            _buttons(state, names, game_round.true_label)
    else:
        image = np.asarray(dataset.x_train[game_round.index][0])
        scale = max(1, _PIXELS // image.shape[0])
        left.image(np.kron(image, np.ones((scale, scale))), clamp=True)
        verdict = "right" if state["guess"] == game_round.true_label else "wrong"
        left.markdown(
            f"True label **{names[game_round.true_label]}**; the guess "
            f"**{names[state['guess']]}** was {verdict}."
        )
        left.button("Next example", key="guess_next", on_click=_next_round, args=(state, dataset))
    tally = state["tally"]
    low, high = tally.interval()
    rate = tally.hits / tally.rounds if tally.rounds else 0.0
    with right:
        chart(st, plots.tally_figure([("your class", rate, low, high)], tally.bound), key="tally")
        st.caption(
            f"{tally.hits} right of {tally.rounds} at ε = {epsilon:g}. No guesser can beat "
            f"e^ε/(e^ε + K − 1) = {tally.bound:.3f} in the long run; always answering the "
            "released label reaches it. The bar is the 95% interval of your rate."
        )
        st.button("Reset the tally", key="guess_reset", on_click=_reset, args=(state, dataset))
    first, second = output_distributions(epsilon, dataset.num_classes)
    chart(st, plots.neighbour_outputs_figure(first, second, epsilon, names), key="neighbours")
    st.caption(
        f"The two neighbours: the same example with true label {names[0]} or {names[1]}. Every "
        "released label is at most e^ε times likelier under one than under the other (shaded): "
        "that ratio is all a guesser can learn from one release."
    )
