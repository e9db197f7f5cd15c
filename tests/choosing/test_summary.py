from labeldp_core import plots
from labeldp_core.choosing import summary


def test_compare_and_choose_read_one_summary_not_two_copies():
    # "I can afford ε = x" on the Choose ε page is Compare's summary at x (issue 38).
    assert plots.summary_at is summary.summary_at
    assert plots.summary_rows is summary.summary_rows
    assert plots.clean_baseline is summary.clean_baseline
