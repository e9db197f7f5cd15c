from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.choosing import summary


def test_compare_and_choose_read_one_summary_not_two_copies():
    # "I can afford ε = x" on the Choose ε page is Compare's summary at x (issue 38).
    assert plots.summary_at is summary.summary_at
    assert plots.summary_rows is summary.summary_rows
    assert plots.clean_baseline is summary.clean_baseline


def _at(mechanism: str, epsilon: float, accuracy: float, seed: int = 0, unit: str = "label"):
    return fake_result(
        mechanism=mechanism, epsilon=epsilon, seed=seed, privacy_unit=unit, test_accuracy=accuracy
    )


def test_the_small_epsilon_sentence_names_the_best_label_dp_classifier_beside_rr():
    results = [
        _at("rr", 0.1, 0.10),
        _at("rr", 0.1, 0.12, seed=1),
        _at("rr-prior", 0.1, 0.78),
        _at("rr-prior", 0.1, 0.80, seed=1),
        _at("dpsgd", 0.1, 0.90, unit="example"),  # not label DP: not in the sentence
        _at("pate", 0.5, 0.95),  # not at the smallest ε
        _at("rr", 2.0, 0.84),
    ]
    text = summary.small_epsilon_sentence(results, {"rr-prior": "RR with prior"})
    assert text.startswith(
        "At ε = 0.1, the smallest label-DP budget drawn, RR with prior keeps 0.790"
    )
    assert "randomized response keeps 0.110" in text


def test_the_small_epsilon_sentence_says_nothing_without_a_small_label_dp_point():
    assert summary.small_epsilon_sentence([_at("rr", 2.0, 0.8)], {}) == ""
    only_rr = summary.small_epsilon_sentence([_at("rr", 0.5, 0.6)], {"rr": "Randomized response"})
    assert only_rr == (
        "At ε = 0.5, the smallest label-DP budget drawn, Randomized response keeps 0.600 test "
        "accuracy (mean over its seeds)."
    )
