"""The threat-model card under every mechanism page: what its ε protects, from its family."""

from pathlib import Path

import streamlit as st

from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments.runner import make_config
from labeldp_core.registry import pages, tuning_of

__all__ = ["threat_cards"]

_NAMES = (
    ("assumed_public", "Assumed public"),
    ("not_protected", "Not protected, whatever ε is"),
    ("narrower", "Where the guarantee is narrower"),
)


def _markdown(card: dict[str, object]) -> str:
    lines = [f"**Protects**: {card['protects']}."]
    for key, name in _NAMES:
        values = card.get(key) or []
        if values:
            lines.append(f"**{name}**: " + "; ".join(str(v) for v in values) + ".")
    lines.append(f"**The adversary** {card['adversary']}")
    return "\n\n".join(lines)


def _noise_mode(settings: dict) -> str | None:
    """The page's noise mode: its control's, else the setting's default (None: no setting)."""
    if "noise" not in settings:
        return None
    chosen = st.session_state.get("noise")
    return chosen if isinstance(chosen, str) else str(settings["noise"].default)


def _delta(settings: dict) -> float:
    """The δ a run of these settings asks for by default (0 for pure DP): its card's bound.

    A run spends at most that δ, so the card's "plus δ" holds for every run the page makes.
    """
    return float(settings["delta"].default) if "delta" in settings else 0.0


def _tuning_notes(entries: list, dataset: str) -> list[str]:
    """Where each mechanism's recipe on ``dataset`` was picked by comparing runs on labels."""
    notes = []
    for entry in entries:
        try:
            tuning = tuning_of(make_config(entry.spec.id, dataset, 1.0))
        except InvalidInputError:  # a mechanism this dataset cannot run
            continue
        if tuning is not None:
            notes.append(f"{entry.spec.title}, with this dataset's recipe: {tuning['note']}")
    return notes


def threat_cards(url_path: str, dataset: str) -> None:
    """The cards of the family whose page is ``url_path`` (nothing on other pages).

    Under them, for ``dataset``, the recipe's settings that were picked on private labels.
    """
    for family, page in pages():
        if Path(page.file).stem != url_path:
            continue
        cards: dict[str, list[str]] = {}
        for entry in family.mechanisms:
            settings = entry.spec.all_settings()
            text = _markdown(entry.card(_noise_mode(settings), _delta(settings)))
            cards.setdefault(text, []).append(entry.spec.title)
        with st.expander("What ε protects here (the threat model)"):
            for text, titles in cards.items():
                if len(cards) > 1:
                    st.markdown(f"*{', '.join(titles)}*")
                st.markdown(text)
        for note in _tuning_notes(list(family.mechanisms), dataset):
            st.caption(note)
