"""Papers vs this explorer: each paper's table beside ours (closest to our models first), and
the seeds' claimed epsilons."""

import streamlit as st

from labeldp_core import plots
from labeldp_core.base.numbers import readable_table
from labeldp_core.services import reproduce
from ui.controls import current_controls
from ui.export import chart
from ui.results import read_only, reported_errors, result_cache
from ui.warm_panel import warm_button

#: Headers the tables say in words where the key's words are not enough ("—": not computed yet).
HEADERS = {
    "computed_seeds": "our seeds computed",
    "ours_min": "ours, worst seed",
    "ours_max": "ours, best seed",
    "our_gain_min": "our gain, worst seed",
    "our_gain_max": "our gain, best seed",
    "privacy_unit": "privacy unit",
    "paper_sigma": "σ the paper likely used (our reading)",
    "equal_noise_epsilon": "our ε at that σ",
    "ours_at_paper_sigma": "ours at that σ (our reading)",
}


@st.cache_data(show_spinner=False, ttl=60)
def _rows() -> tuple[list[dict], list[dict]]:
    cache = result_cache()
    return reproduce.paper_rows(cache), reproduce.lesson_rows(cache)


def render() -> None:
    """Draw the page: each paper's table beside ours, closest to our models first; the lessons."""
    current_controls()
    st.title("Papers vs this explorer")
    st.markdown(
        "Each published figure we can match (paper, table, dataset, model and training recipe, "
        "ε, δ, privacy unit) beside this explorer's run of the same mechanism at the same ε on "
        "the same dataset, over seeds 0, 1 and 2. The first table trains a small CNN much like "
        "this explorer's, so its numbers compare directly; the others train larger models for "
        "longer, where the retention ratio (private ÷ clean accuracy) is the fairer comparison. "
        "The last table, free accuracy, compares a setting's gain only: its papers publish on "
        "CIFAR, which this machine does not have, so our gain is measured on Fashion-MNIST."
    )
    with reported_errors():
        papers, lessons = _rows()
    _needs(papers)
    for section in reproduce.sections(papers):
        _table_section(section)
    _lessons_section(lessons)


def _needs(papers: list[dict]) -> None:
    """Say in one line what the page needs, offer a warm per dataset; the details folded."""
    needs = reproduce.page_needs(papers)
    to_fill = reproduce.fill_instructions(papers)
    if needs is not None:
        line, to_warm = needs
        st.info(line, icon=":material/info:")
        if to_warm and not read_only():
            for column, dataset in zip(st.columns(len(to_warm)), to_warm, strict=True):
                warm_button(column, dataset, f"Warm {dataset}", key=f"warm_{dataset}")
    if to_fill:
        with st.expander("What fills each row, from the command line"):
            st.markdown(to_fill)


def _table_section(section: reproduce.Section) -> None:
    """Draw one paper's table: its title, model and recipe, then per dataset a chart and rows.

    Args:
        section: a table's rows of :func:`labeldp_core.services.reproduce.paper_rows`.
    """
    st.subheader(section.table.title)
    st.caption(f"{section.table.note} {section.setting()}")
    if (note := reproduce.equal_noise_note(section.rows)) is not None:
        st.caption(note)
    gains = section.compares_gains()
    for dataset, rows in section.datasets().items():
        if not gains:  # a gain table draws no accuracies: theirs and ours may be on two datasets
            chart(st, plots.papers_figure, rows, key=f"papers-{section.table.id}-{dataset}")
        missing = sum(not row["computed_seeds"] for row in rows)
        st.caption(
            f"{dataset}: "
            + (_gain_datasets(rows) if gains else "")
            + (
                f"ours not computed yet for {missing} of the {len(rows)} rows (what fills them is "
                "said above)."
                if missing
                else "every row is computed."
            )
        )
        st.dataframe(
            readable_table(rows, section.columns(), HEADERS),
            hide_index=True,
            key=f"papers_table-{section.table.id}-{dataset}",
        )


def _gain_datasets(rows: list[dict]) -> str:
    """Which dataset the paper's figures and our gains come from, said before a gain table."""
    ours = sorted({row["our_dataset"] for row in rows})
    theirs = sorted({row["dataset"] for row in rows})
    if ours == theirs:
        return "the paper's gain and ours, on the same dataset; "
    return (
        f"the paper's figures are on {', '.join(theirs)}, ours on {', '.join(ours)}: different "
        "datasets, so only the gains (with the setting minus without) compare; "
    )


def _lessons_section(lessons: list[dict]) -> None:
    """Draw the seeds' lessons: each tutorial's claimed ε, the ε it spends, the ε audited.

    Args:
        lessons: the rows of :func:`labeldp_core.services.reproduce.lesson_rows`.
    """
    st.subheader("The seeds' lessons: ε claimed, ε spent, ε proved")
    chart(st, plots.lesson_figure, lessons, key="lessons")
    st.caption(
        "Slips of the tutorials this project grew from, each claiming ε = 1: the ε it really "
        "spends (computed) for what is released and the lower bound this project's audit proves "
        "for it with 200,000 draws per neighbour. An audited bound above the claim refutes it. "
        "PATE's truncated noise (count + int(noise)) has two rows: the noisy vote counts cost "
        "1 + 2 ln 2, but PATE publishes only the argmax, whose loss with the same noise is at "
        "most 2/b = 1 at b = 2 (the supremum over two-class vote histograms, never reached): "
        "there the claim holds, so that row has no audit."
    )
    columns = list(lessons[0]) if lessons else []
    st.dataframe(readable_table(lessons, columns, HEADERS), hide_index=True, key="lessons_table")


render()
