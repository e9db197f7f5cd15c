"""Consensus retraining on a mechanism's page: one toggle, the curves with and without it.

Consensus retraining (Das et al. 2025; :mod:`labeldp_core.engine.consensus`) is a run setting,
``consensus=1``, of every mechanism that releases labels for a classifier. A page passes the
sweep it draws (its configs by legend name); with the toggle on, this draws those curves again
beside the same runs retrained on their consensus sets, the set's size and label accuracy (a
diagnostic: it reads the true labels) and, at the page's ε, the paired gain. The retrained
points are never on the demo grid (`warm` leaves them out), so a button computes them.
"""

from collections.abc import Mapping, Sequence

import streamlit as st

from labeldp_core.base.numbers import shown_rows
from labeldp_core.choosing.clean_reference import clean_line
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult, make_config
from labeldp_core.plots.consensus import consensus_curves, consensus_rows, consensus_set_figure
from ui.export import chart
from ui.results import reported_errors, result_cache, stored_many
from ui.sweeps import compute_button, status_sentence

__all__ = [
    "consensus_section",
    "consensus_toggle",
    "offers_consensus",
    "stored_series",
    "with_consensus",
]

TOGGLE_LABEL = "Compare with consensus retraining"
TOGGLE_HELP = (
    "Consensus retraining (Das et al., ICML 2025): train on the released labels, predict the "
    "training set, train again from scratch on the examples whose prediction agrees with their "
    "released label. It reads no true label, so it is post-processing: ε is unchanged."
)


def offers_consensus(mechanism: str) -> bool:
    """Whether ``mechanism`` declares the ``consensus`` setting (it releases labels to train on)."""
    return mechanism in MECHANISMS and "consensus" in MECHANISMS[mechanism].settings


def with_consensus(config: RunConfig) -> RunConfig:
    """``config`` with ``consensus=1``: the same run retrained on its consensus set."""
    settings = dict(config.settings) | {"consensus": 1}
    return make_config(
        config.mechanism, config.dataset, config.epsilon, config.seed, config.epochs, settings
    )


def stored_series(
    configs: Mapping[str, Sequence[RunConfig]],
) -> tuple[dict[str, list[RunResult]], list[RunConfig]]:
    """The stored results of each named series of ``configs``, and the configs still missing."""
    found, absent = {}, []
    for name, series in configs.items():
        found[name], missing = stored_many(list(series))
        absent += missing
    return found, absent


def consensus_toggle(key: str) -> bool:
    """Draw the toggle (bound to the link) that adds consensus retraining; whether it is on."""
    return st.toggle(TOGGLE_LABEL, value=False, key=key, help=TOGGLE_HELP, bind="query-params")


def consensus_section(
    configs: Mapping[str, Sequence[RunConfig]],
    epsilon: float,
    chance: float,
    *,
    key: str = "consensus",
    mechanisms: Mapping[str, str] | None = None,
) -> None:
    """Draw the toggle and, when on, the page's curves with and without consensus retraining.

    Args:
        configs: the page's sweep by legend name, trained once (``consensus=0``); only the
            series of mechanisms that offer consensus retraining are drawn.
        epsilon: the ε chosen on the page, marked on the figures; the table shows it.
        chance: the accuracy of guessing (1/K).
        key: the prefix of every widget's key (the toggle's is ``key``).
        mechanisms: each name's mechanism or variant, for the colours (as the page's chart).
    """
    if not consensus_toggle(key):
        return
    offered = {n: list(c) for n, c in configs.items() if c and offers_consensus(c[0].mechanism)}
    with reported_errors():
        retrained_configs = {n: [with_consensus(c) for c in cs] for n, cs in offered.items()}
        plain, absent_plain = stored_series(offered)
        retrained, absent = stored_series(retrained_configs)
        missing = absent_plain + absent
        compute_button(missing, "Run both sweeps", key=f"{key}_run")
    first = next(iter(offered.values()))[0] if offered else None
    baseline = None
    if first is not None:  # the pages' one clean line, for the runs' dataset, model and epochs
        runs = [r for rs in plain.values() for r in rs]
        model, cache = str(first.setting("model")), result_cache()
        baseline = clean_line(first.dataset, model, first.epochs, cache, runs).score
    kwargs = {"chance": chance, "marked_epsilon": epsilon, "mechanisms": mechanisms}
    chart(st, consensus_curves, plain, retrained, baseline, **kwargs, key=f"{key}_accuracy")
    st.caption(
        "Solid: trained once on the released labels. Dotted with diamonds: the same runs "
        "retrained on their consensus set. Consensus retraining reads only the released labels, "
        "the images and the model's own predictions, so each point keeps its ε. "
        + status_sentence(missing)
    )
    _set_and_gain(retrained, epsilon, key, mechanisms)


def _set_and_gain(
    retrained: dict[str, list[RunResult]],
    epsilon: float,
    key: str,
    mechanisms: Mapping[str, str] | None,
) -> None:
    """Draw the consensus set's figure and, at ``epsilon``, each run's paired gain."""
    if not any(retrained.values()):
        return
    chart(
        st,
        consensus_set_figure,
        retrained,
        marked_epsilon=epsilon,
        mechanisms=mechanisms,
        key=f"{key}_set",
    )
    st.caption(
        "The consensus set's size reads no true label. Its label accuracy (solid) and that of "
        "every released label (dotted) read the true training labels: diagnostics computed "
        "without privacy, to show how much cleaner the retraining set is, never released."
    )
    rows = consensus_rows(retrained, epsilon)
    if rows:
        st.markdown(
            f"**At ε = {epsilon:g}**: without is the first model of the same run (same labels, "
            "same seed), so the gain is paired."
        )
        st.dataframe(shown_rows(rows), hide_index=True, key=f"{key}_table")
