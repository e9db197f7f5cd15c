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
        "the noisy vote counts", "only the argmax (what PATE publishes)",
    ]  # fmt: skip
    assert any("only the argmax" in c.value and "1 + 2 ln 2" in c.value for c in app.caption)
