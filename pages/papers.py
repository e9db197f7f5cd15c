"""Papers vs this explorer: published figures beside ours, and the seeds' claimed epsilons."""

import streamlit as st

from labeldp_core import plots, reproduce
from labeldp_core.plots.papers import figure_label
from ui.controls import current_controls
from ui.export import chart
from ui.results import reported_errors, result_cache


@st.cache_data(show_spinner=False, ttl=60)
def _rows() -> tuple[list[dict], list[dict]]:
    cache = result_cache()
    return reproduce.paper_rows(cache), reproduce.lesson_rows(cache)


def render() -> None:
    """Draw the page: the papers' figures beside ours, then the seeds' lessons."""
    current_controls()
    st.title("Papers vs this explorer")
    st.markdown(
        "Each published figure we can match (paper, table, dataset, model, ε, δ, privacy unit) "
        "beside this explorer's run of the same mechanism at the same ε on the same dataset, over "
        "seeds 0, 1 and 2. The retention ratio (private ÷ clean accuracy) compares across "
        "architectures: the papers' models are often larger than this explorer's small CNN."
    )
    with reported_errors():
        papers, lessons = _rows()
    _papers_section(papers)
    _lessons_section(lessons)


def _papers_section(papers: list[dict]) -> None:
    """Draw the published figures beside ours, what fills a missing bar, and their table.

    Args:
        papers: the rows of :func:`labeldp_core.reproduce.paper_rows`.
    """
    to_fill = reproduce.fill_instructions(papers)
    if to_fill:
        st.info(to_fill, icon=":material/info:")
    chart(st, plots.papers_figure, papers, key="papers")
    missing = [figure_label(row) for row in papers if not row["computed_seeds"]]
    st.caption(
        "A missing bar of ours is a row whose runs are not computed yet (what fills it is said "
        "above). "
        + (f"Not computed yet: {'; '.join(missing)}." if missing else "Every row is computed.")
    )
    st.dataframe(papers, hide_index=True, key="papers_table")


def _lessons_section(lessons: list[dict]) -> None:
    """Draw the seeds' lessons: each tutorial's claimed ε, the ε it spends, the ε audited.

    Args:
        lessons: the rows of :func:`labeldp_core.reproduce.lesson_rows`.
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
    st.dataframe(lessons, hide_index=True, key="lessons_table")


render()
