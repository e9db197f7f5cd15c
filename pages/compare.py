"""Compare every mechanism on one dataset: score vs epsilon over three seeds, units marked."""

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.base.numbers import shown_rows
from labeldp_core.choosing.summary import small_epsilon_sentence
from labeldp_core.experiments import MECHANISMS, RunConfig, RunResult
from labeldp_core.experiments.demo import DEMO_EPSILONS, DEMO_SEEDS, demo_configs
from labeldp_core.plots.compare import short_name
from labeldp_core.plots.consensus import consensus_name
from labeldp_core.plots_base.common import UNIT_SCALE_NOTE
from labeldp_core.registry import ON_COMPARE, mechanism_title
from labeldp_core.services import reproduce
from labeldp_core.services.reports import PRIVACY_UNITS, html_report
from ui.clean import page_clean_line
from ui.consensus import TOGGLE_HELP, offers_consensus, stored_series, with_consensus
from ui.controls import Controls, current_controls
from ui.epsilon import epsilon_control
from ui.export import chart, csv_button, html_button
from ui.links import linked
from ui.results import reported_errors, result_cache, stored_many
from ui.sweeps import compute_button, status_sentence

#: The numbers table's column of the ε spent (compared with its ε asked when shown).
_SPENT = "epsilon spent (max over seeds)"


@st.cache_data(show_spinner=False, ttl=60)
def _paper_rows() -> list[dict]:
    return reproduce.paper_rows(result_cache())


def _titled(table: list[dict]) -> list[dict]:
    """``table`` with each row's mechanism id replaced by its title."""
    return [row | {"mechanism": mechanism_title(row["mechanism"])} for row in table]


def render() -> None:
    """Draw the page: ε, the comparison under it, the mechanisms picked, the tables, downloads."""
    controls = current_controls()
    st.title("Compare mechanisms")
    epsilon = epsilon_control(grid=DEMO_EPSILONS)
    headline = st.container()  # the comparison, right under the ε control (drawn below)
    st.markdown(
        "Every mechanism on the same dataset and model, over the same grid of ε, averaged over "
        f"{len(DEMO_SEEDS)} seeds (the band is the range). Label-DP mechanisms protect one "
        "training label (replace-one) and are drawn solid; DP-SGD and DP prototypes protect a "
        "whole example (add/remove) and are drawn dashed. " + UNIT_SCALE_NOTE
    )
    chosen = linked(
        st.multiselect,
        "Mechanisms",
        "mechanisms",
        list(MECHANISMS),
        labels=mechanism_title,
        default=list(ON_COMPARE),
        help="\n".join(f"- {s.title}: {s.summary} [{s.privacy_unit}]" for s in MECHANISMS.values()),
    )
    variants = st.checkbox(
        "Add the label-releasing mechanisms retrained on their consensus sets",
        value=False,
        key="consensus_variants",
        bind="query-params",
        help=TOGGLE_HELP + " Each becomes a curve of its own, named '... + consensus'.",
    )
    found, retrained, absent = _stored_points(controls, chosen, variants)
    _at_epsilon_table(found, epsilon)
    figures = _headline_charts(headline, controls, (found, retrained), (chosen, epsilon, absent))
    st.caption(
        "DP-SGD and PATE run their published recipes: DP-SGD the tanh CNN with SGD, momentum, "
        "clipping 0.1 and large batches for tens of epochs (Papernot et al. 2021; Tramer & Boneh "
        "2021), PATE a student that also self-trains on the public part's unlabelled images (PATE "
        "2018 trains it semi-supervised). Neither is hopeless: each protects more, or differently, "
        "and the gap to the label-DP mechanisms is the price of that. "
        + " ".join(
            part
            for part in (
                small_epsilon_sentence(found, {m: spec.title for m, spec in MECHANISMS.items()}),
                reproduce.gap_sentence(_paper_rows(), controls.dataset),
            )
            if part
        )
    )
    rows = _numbers_table(controls, found, chosen)
    _downloads(controls, rows, figures, found, chosen)


def _stored_points(
    controls: Controls, chosen: list[str], variants: bool
) -> tuple[list[RunResult], dict[str, list[RunResult]], list[RunConfig]]:
    """The demo grid's points of the ``chosen`` mechanisms: those stored, those not yet.

    With ``variants``, also the same points of each one that offers it retrained on its
    consensus set, by curve name (:func:`consensus_variants`). Draws the button that computes
    the missing ones and, if any, an expander naming them.
    """
    with reported_errors():
        configs = demo_configs(
            controls.dataset,
            chosen,
            DEMO_SEEDS,
            controls.epochs_asked,
            controls.model,
            variants=False,
        )
        found, absent = stored_many(configs)
        retrained, absent_retrained = stored_series(consensus_variants(configs) if variants else {})
        absent += absent_retrained
        compute_button(absent, "Compute the missing points", key="compute_missing")
    if absent:
        with st.expander(f"{len(absent)} points not computed yet"):
            st.write(sorted({f"{_point_name(c)} ε={c.epsilon:g}" for c in absent}))
    return found, retrained, absent


def consensus_variants(configs: list[RunConfig]) -> dict[str, list[RunConfig]]:
    """``configs`` of the mechanisms that offer it, with ``consensus=1``, by curve name."""
    variants: dict[str, list[RunConfig]] = {}
    for config in configs:
        if offers_consensus(config.mechanism):
            name = consensus_name(short_name(mechanism_title(config.mechanism)))
            variants.setdefault(name, []).append(with_consensus(config))
    return variants


def _point_name(config: RunConfig) -> str:
    """A missing point's mechanism as the expander names it, a consensus variant included."""
    title = mechanism_title(config.mechanism)
    retrained = dict(config.settings).get("consensus") == 1
    return consensus_name(short_name(title)) if retrained else title


def _at_epsilon_table(found: list[RunResult], epsilon: float) -> None:
    """Draw each mechanism at the grid ε nearest ``epsilon``, by privacy unit (if any is stored)."""
    at_epsilon = plots.summary_at(found, epsilon)
    if at_epsilon:
        st.subheader(f"At ε ≈ {epsilon:g}, by privacy unit")
        st.dataframe(_titled(at_epsilon), hide_index=True, key="at_epsilon")
        st.caption(
            "Each mechanism at the grid ε nearest the one chosen, the best first within each "
            "privacy unit, with the ε it spent there and what that ε protects. Rows of different "
            "units are not on one scale."
        )


def _headline_charts(
    headline: DeltaGenerator,
    controls: Controls,
    points: tuple[list[RunResult], dict[str, list[RunResult]]],
    picked: tuple[list[str], float, list[RunConfig]],
) -> list[tuple]:
    """Draw score vs ε spent into ``headline``, one chart per task; return them for the report.

    Args:
        headline: the container right under the ε control.
        controls: the shared controls (the clean line is their model's, :func:`page_clean_line`).
        points: the stored points, and the consensus variants' by curve name (drawn as
            curves of their own among the classifiers).
        picked: the mechanisms picked, the ε marked on each chart, and the points not computed
            yet (the caption says so).

    Returns:
        Each figure drawn with its title, for the HTML report.
    """
    found, retrained = points
    chosen, epsilon, absent = picked
    units = {spec.title: spec.privacy_unit for spec in MECHANISMS.values()}
    units |= {name: "label" for name in retrained}
    # Runs that train the page's model record it trained on clean labels (DP prototypes train none).
    trained = [r for r in found if MECHANISMS[r.mechanism].trains_model]
    clean = page_clean_line(controls, trained)
    figures = []
    for task, metric in (("classification", "test accuracy"), ("regression", "test MSE")):
        series = {
            MECHANISMS[m].title: [r for r in found if r.mechanism == m]
            for m in chosen
            if MECHANISMS[m].task == task
        }
        if task == "classification" and series:
            series |= retrained
        if not series:
            continue
        baseline = (
            clean.score if task == "classification" else plots.clean_baseline(trained, metric)
        )
        figure = plots.comparison_figure(series, units, baseline, metric, marked_epsilon=epsilon)
        figures.append((figure, f"{metric} vs ε spent"))
        chart(headline, figure, key=f"compare_{task}")
    headline.caption(
        "Each line is the mean over seeds at the ε its accounting computed (ε spent, under the "
        "mechanism's own neighbouring relation); the shaded band spans the lowest to the highest "
        "seed. Each line is named at its end; solid is label DP, dashed example DP. A line's hover "
        "says its guarantee: DP-SGD, PATE and DPPL-Mean are (ε, δ)-DP. "
        "DPPL-Mean calibrates its zCDP ρ so that the (ε, δ) it converts to, ρ + 2√(ρ ln(1/δ)), is "
        "at most the ε asked. The green dashed line is the same model trained on the true labels "
        f"({clean.words or 'none computed yet'}; a diagnostic, not private). "
        + status_sentence(absent)
    )
    return figures


def _numbers_table(controls: Controls, found: list[RunResult], chosen: list[str]) -> list[dict]:
    """Draw the numbers of every stored point with what each guarantee covers; return the rows.

    The table shows them to four significant digits; the rows returned (the CSV) keep them whole.
    """
    st.subheader(f"The numbers at every ε ({controls.dataset_name})")
    rows = _titled(plots.summary_rows(found, chosen))
    st.dataframe(shown_rows(rows, {_SPENT: "epsilon asked"}), hide_index=True)
    st.caption(
        "ε spent is what the accounting computed (it can be below what was asked, e.g. when a "
        "noise scale is rounded up, and above it for DPPL-Mean, whose ε asked only sets ρ); δ is "
        "0 for pure DP; the guarantee column states it with its neighbouring relation. "
        + " ".join(f"{unit}: {text}." for unit, text in PRIVACY_UNITS.items())
    )
    return rows


def _downloads(
    controls: Controls,
    rows: list[dict],
    figures: list[tuple],
    found: list[RunResult],
    chosen: list[str],
) -> None:
    """Draw the two downloads side by side: the table as CSV, the comparison as an HTML report."""
    left, right = st.columns(2)
    with left:
        csv_button(rows, f"compare-{controls.dataset}.csv", key="csv")
    with right:
        settings = {
            "dataset": controls.dataset,
            "model": controls.model,
            "epochs": controls.epochs_asked or "auto",
            "seeds": ", ".join(map(str, DEMO_SEEDS)),
            "mechanisms": ", ".join(chosen),
        }
        title = f"Label DP mechanisms on {controls.dataset_name}"
        html_button(
            lambda: html_report(title, figures, found, settings),
            f"compare-{controls.dataset}.html",
            key="html",
        )


render()
