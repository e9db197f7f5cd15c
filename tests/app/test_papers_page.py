"""The papers page shows the published figures beside ours."""

from app_helpers import assert_no_errors, open_page


def test_the_page_shows_both_tables(cache):
    app = open_page("pages/papers.py")
    assert_no_errors(app)
    assert len(app.dataframe) == 2
    assert any("Not computed yet" in c.value for c in app.caption)


def test_the_pate_lesson_is_shown_for_the_counts_and_for_the_argmax(cache):
    app = open_page("pages/papers.py")
    assert_no_errors(app)
    lessons = app.dataframe[1].value
    pate = lessons[lessons["lesson"].str.contains("int(noise)", regex=False)]
    assert list(pate["released"]) == [
        "the noisy vote counts",
        "only the argmax (what PATE publishes)",
    ]
    assert any("only the argmax" in c.value and "1 + 2 ln 2" in c.value for c in app.caption)


def test_a_digits_only_cache_is_told_what_is_missing_and_how_to_fill_it(cache):
    # On a digits-only setup every bar of ours was missing with no word why, and the bars were
    # named by ids (ghazi2021-lp1st-eps1).
    from app_helpers import chart_spec

    from labeldp_core.reproduce import published_figures

    app = open_page("pages/papers.py")
    assert_no_errors(app)
    (note,) = [i.value for i in app.info]
    assert note.startswith("None of the 5 published figures has a run of this explorer")
    assert "fashion-mnist" in note and "python -m labeldp_core reproduce --compute" in note
    spec = chart_spec(app, "papers")
    names = [str(x) for trace in spec["data"] for x in trace["x"]]
    assert names and not [n for n in names if any(f.id in n for f in published_figures())]
    assert "LP-2ST · ResNet-18<br>(Ghazi et al. 2021, ε = 1)" in names
    assert spec["layout"]["yaxis"]["title"]["text"] == "test accuracy"
    assert "none computed yet" in spec["data"][1]["name"]
    assert not [c.value for c in app.caption if "ghazi2021" in c.value]
    assert len(app.dataframe) == 2  # the published rows and the lessons are still shown
