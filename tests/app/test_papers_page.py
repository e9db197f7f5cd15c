"""The papers page shows the published figures beside ours."""

from app_helpers import assert_no_errors, open_page


def test_the_page_shows_both_tables(cache):
    app = open_page("pages/papers.py")
    assert_no_errors(app)
    assert len(app.dataframe) == 2
    assert any("Not computed yet" in c.value for c in app.caption)
