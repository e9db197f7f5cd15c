"""PATE: vote counting, the noisy-max aggregators, the split, the experiment, CLI and page.

The accounting has its own file, tests/families/pate/test_accounting.py.
"""

import itertools
import json
import math
from collections.abc import Iterator

import numpy as np
import pytest
from scipy import stats

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.data.splits import PUBLIC_MAX, public_size, teacher_split
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import MECHANISMS, RunResult, make_config, run
from labeldp_core.families.pate import experiment as pate_experiment
from labeldp_core.mechanisms import (
    UNANSWERED,
    confident_gnmax,
    noisy_argmax,
    plurality,
    top_two_gap,
    vote_counts,
)
from tests.families.pate.scrambled import (
    assert_the_student_read_no_public_label,
    run_with_public_labels_scrambled,
)

# Fixed seeds make the statistical tests deterministic; ALPHA bounds how often each would fail
# for an arbitrary seed if the mechanism were right.
ALPHA = 1e-3
PAGE = "pages/pate.py"


def binomial_ok(successes: int, trials: int, p: float) -> bool:
    return stats.binomtest(successes, trials, p).pvalue > ALPHA


# --- Vote counting and aggregation ---------------------------------------------------------------


def test_vote_counts_equal_a_naive_count():
    rng = np.random.default_rng(0)
    votes = rng.integers(0, 7, size=(37, 123))
    naive = np.zeros((123, 7), dtype=np.int64)
    for teacher in range(37):
        for query in range(123):
            naive[query, votes[teacher, query]] += 1
    np.testing.assert_array_equal(vote_counts(votes, 7), naive)
    assert vote_counts(votes.astype(np.int16), 7).dtype == np.int64


@pytest.mark.parametrize(("teachers", "classes"), [(255, 3), (256, 3), (300, 2), (5, 300)])
def test_vote_counts_do_not_overflow_their_narrow_types(teachers, classes):
    # 255 unanimous votes fill uint8 exactly; 256 and more need uint16; 300 classes need uint16.
    votes = np.zeros((teachers, 4), dtype=np.int64)
    votes[:, 1] = classes - 1
    counts = vote_counts(votes, classes)
    assert counts[0, 0] == counts[1, classes - 1] == teachers
    assert counts.sum(axis=1).tolist() == [teachers] * 4


@pytest.mark.parametrize("kind", ["laplace_scale", "gaussian_sigma"])
def test_zero_noise_gives_the_plurality(kind):
    rng = np.random.default_rng(1)
    counts = vote_counts(rng.integers(0, 10, size=(9, 500)), 10)  # many ties among 9 votes
    naive = [max(range(10), key=lambda k, row=row: (row[k], -k)) for row in counts]
    np.testing.assert_array_equal(noisy_argmax(counts, rng, **{kind: 0.0}), naive)
    np.testing.assert_array_equal(plurality(counts), naive)


@pytest.mark.parametrize("gap", [0, 3, 10])
def test_gnmax_changes_the_answer_as_often_as_the_closed_form(gap):
    # Two classes: the answer flips iff N(0, 2 sigma^2) exceeds the gap; exact, no union bound.
    sigma, trials = 5.0, 20_000
    counts = np.tile([[20 + gap, 20]], (trials, 1))
    flipped = int(np.sum(noisy_argmax(counts, np.random.default_rng(2), gaussian_sigma=sigma)))
    assert binomial_ok(flipped, trials, stats.norm.sf(gap / (math.sqrt(2) * sigma)))


@pytest.mark.parametrize("gap", [0, 3, 10])
def test_lnmax_changes_the_answer_as_often_as_the_closed_form(gap):
    # Two Laplace(b) draws differ by more than g with probability (2 + g/b) / (4 e^(g/b))
    # (2017 paper, Lemma 4).
    b, trials = 4.0, 20_000
    counts = np.tile([[20 + gap, 20]], (trials, 1))
    flipped = int(np.sum(noisy_argmax(counts, np.random.default_rng(3), laplace_scale=b)))
    assert binomial_ok(flipped, trials, (2 + gap / b) / (4 * math.exp(gap / b)))


@pytest.mark.parametrize("kind", ["laplace_scale", "gaussian_sigma"])
def test_noise_is_added_as_floating_point(kind):
    # On a tie, even tiny noise must break it evenly; noise rounded to int would always be 0
    # and always pick class 0.
    trials = 10_000
    counts = np.tile([[5, 5]], (trials, 1))
    winners = noisy_argmax(counts, np.random.default_rng(4), **{kind: 0.01})
    assert binomial_ok(int(winners.sum()), trials, 0.5)


def test_confident_gnmax_answers_as_often_as_the_threshold_check_says():
    trials, threshold, sigma1 = 20_000, 30.0, 8.0
    counts = np.tile([[25, 10, 5]], (trials, 1))
    labels = confident_gnmax(
        counts,
        np.random.default_rng(5),
        threshold=threshold,
        threshold_sigma=sigma1,
        gaussian_sigma=1.0,
    )
    answered = labels != UNANSWERED
    assert binomial_ok(int(answered.sum()), trials, stats.norm.sf((threshold - 25) / sigma1))
    assert set(np.unique(labels[answered])) <= {0, 1, 2}


def test_confident_gnmax_answers_fewer_queries_as_the_threshold_grows():
    rng = np.random.default_rng(6)
    counts = vote_counts(rng.integers(0, 4, size=(50, 2000)) * rng.integers(0, 2, (50, 1)), 4)
    answered = [
        int(
            np.sum(
                confident_gnmax(
                    counts,
                    np.random.default_rng(7),
                    threshold=t,
                    threshold_sigma=5.0,
                    gaussian_sigma=5.0,
                )
                != UNANSWERED
            )
        )
        for t in range(0, 61, 5)
    ]
    assert all(a >= b for a, b in itertools.pairwise(answered))
    assert answered[0] > 0.99 * 2000 and answered[-1] < 0.01 * 2000


def test_top_two_gap():
    np.testing.assert_array_equal(top_two_gap(np.array([[5, 1, 3], [2, 2, 0]])), [2, 0])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: noisy_argmax(np.ones((2, 3)), np.random.default_rng()), "exactly one"),
        (
            lambda: noisy_argmax(
                np.ones((2, 3)), np.random.default_rng(), laplace_scale=1, gaussian_sigma=1
            ),
            "exactly one",
        ),
        (lambda: noisy_argmax(np.ones((2, 3)), np.random.default_rng(), gaussian_sigma=-1), ">= 0"),
        (lambda: noisy_argmax(np.ones(3), np.random.default_rng(), gaussian_sigma=1), "queries, K"),
        (
            lambda: noisy_argmax(-np.ones((2, 3)), np.random.default_rng(), gaussian_sigma=1),
            "non-negative",
        ),
        (lambda: vote_counts(np.array([[0, 3]]), 3), "0..2"),
        (lambda: vote_counts(np.array([0, 1]), 3), "teachers, queries"),
        (lambda: vote_counts(np.array([[0.5]]), 3), "integer"),
        (
            lambda: confident_gnmax(
                np.ones((2, 3)),
                np.random.default_rng(),
                threshold=float("nan"),
                threshold_sigma=1,
                gaussian_sigma=1,
            ),
            "finite",
        ),
        (lambda: teacher_split(100, 90, 0), "teachers must lie in 1..84"),
    ],
)
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()


# --- Split ----------------------------------------------------------------------------------------


def test_split_is_disjoint_complete_and_deterministic_by_seed():
    split = teacher_split(60_000, 250, seed=3)
    parts = np.concatenate([split.public, *split.shards])
    assert np.array_equal(np.sort(parts), np.arange(60_000))
    assert split.public.size == public_size(60_000) == PUBLIC_MAX
    assert split.shard_sizes == (200, 200)
    again = teacher_split(60_000, 250, seed=3)
    assert np.array_equal(split.public, again.public)
    assert all(np.array_equal(a, b) for a, b in zip(split.shards, again.shards, strict=True))
    assert not np.array_equal(split.public, teacher_split(60_000, 250, seed=4).public)
    # The public part does not depend on the number of teachers, so queries stay comparable.
    assert np.array_equal(split.public, teacher_split(60_000, 10, seed=3).public)


# --- Experiment -----------------------------------------------------------------------------------

SMALL = {"teachers": 5, "teacher_epochs": 20, "queries": 100}


def _counted_votings(patch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one each time PATE's experiment has its teachers vote from now on."""
    calls: list[int] = []
    original = pate_experiment.ensemble_votes

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    patch.setattr(pate_experiment, "ensemble_votes", counting)
    return calls


@pytest.fixture(scope="module")
def voted(tmp_path_factory) -> Iterator[tuple[ResultCache, RunResult, int]]:
    """A PATE run at eps 50 in a cache of the module's, and how often its teachers voted.

    The cache then holds the teachers' votes on every public example, which the other runs of
    this module on 5 teachers and 20 teacher epochs read: the teachers train once for both tests
    of the experiment, not once each (5 teachers of 20 epochs, about 2 s of CPU).
    """
    store = ResultCache(tmp_path_factory.mktemp("pate-votes"))
    with pytest.MonkeyPatch.context() as patch:
        calls = _counted_votings(patch)
        result = run(make_config("pate", "digits", 50.0, epochs=10, settings=SMALL), store)
    yield store, result, len(calls)
    store.close()


def test_pate_run_learns_reports_both_epsilons_and_reuses_the_votes(voted, monkeypatch):
    cache, result, voted_times = voted
    assert voted_times == 1
    calls = _counted_votings(monkeypatch)
    details = result.details
    json.dumps(result.to_dict(), allow_nan=False)
    assert result.privacy_unit == "label" and result.delta == 1e-5
    assert result.epsilon_spent <= 50.0 and result.epsilon_spent == pytest.approx(50.0, rel=1e-6)
    assert details["epsilon_data_dependent"] <= result.epsilon_spent
    assert details["queries"] == 100 and details["answered"] == result.n_train == 100
    assert details["split"]["public"] == 239 and details["split"]["private"] == 1198
    assert len(details["teacher_accuracy"]) == 5
    # Learning happened (chance is 0.1): teachers, their plurality, and the student.
    assert min(details["teacher_accuracy"]) > 0.3
    assert details["plurality_accuracy"] > 0.5
    assert result.test_accuracy > 0.3
    curve = details["epsilon_curve"]
    assert curve["queries"][-1] == 100
    assert curve["data_independent"][-1] == pytest.approx(result.epsilon_spent, rel=1e-9)
    assert np.all(np.asarray(curve["data_dependent"]) <= np.asarray(curve["data_independent"]))

    # Another epsilon and another aggregator reuse the teachers' votes.
    other = make_config(
        "pate", "digits", 2.0, epochs=10, settings=SMALL | {"aggregator": "confident-gnmax"}
    )
    confident = run(other, cache)
    assert not calls
    assert confident.details["teacher_accuracy"] == details["teacher_accuracy"]
    assert confident.n_train == confident.details["answered"] < 100
    assert (
        confident.details["epsilon_data_dependent"]
        <= confident.details["epsilon_data_independent_answered_only"]
        <= confident.epsilon_spent
    )
    # Queries beyond the public part are capped at it.
    capped = run(
        make_config("pate", "digits", 2.0, epochs=1, settings=SMALL | {"queries": 2000}), cache
    )
    assert capped.details["queries"] == 239 and capped.details["queries_requested"] == 2000
    assert not calls


def test_the_self_trained_student_never_reads_a_public_label(voted, isolated_cache, monkeypatch):
    # Same run twice, the second with every public label scrambled: the student (supervised and
    # self-trained), its pseudo-labels and the release are identical; the diagnostics that do
    # read the public labels (teacher accuracy) change, so the scrambling took effect. The first
    # reads the teachers' votes from the module's cache; the second computes its own in a cache
    # of its own.
    cache, _, _ = voted
    config = make_config("pate", "digits", 4.0, epochs=2, settings=SMALL | {"queries": 60})
    first = run(config, cache)
    teachers = SMALL["teachers"]
    second = run_with_public_labels_scrambled(config, teachers, isolated_cache, monkeypatch)
    assert_the_student_read_no_public_label(first, second)


def test_pate_is_registered_with_its_settings():
    spec = MECHANISMS["pate"]
    assert spec.title == "PATE" and spec.privacy_unit == "label"
    settings = spec.all_settings()
    assert settings["aggregator"].choices == ("lnmax", "gnmax", "confident-gnmax")
    assert (settings["teachers"].minimum, settings["teachers"].maximum) == (5, 250)


def test_cli_runs_pate_with_settings(capsys):
    args = [
        "run",
        "pate",
        "--dataset",
        "digits",
        "--epsilon",
        "4",
        "--epochs",
        "1",
        "--set",
        "aggregator=lnmax",
        "--set",
        "teachers=5",
        "--set",
        "queries=20",
        "--set",
        "teacher_epochs=1",
        "--set",
        "self_training_rounds=0",  # the student's rounds cost most of the run; not read here
        "--json",
    ]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["mechanism"] == "pate" and result["details"]["aggregator"] == "lnmax"
    assert result["details"]["noise_kind"] == "Laplace scale b"
    assert result["settings"]["self_training_rounds"] == 0


@pytest.mark.parametrize(
    ("setting", "match"),
    [
        ("aggregator=median", "choose one of"),
        ("teachers=300", "at most 250"),
        ("teachers=2", "at least 5"),
        ("threshold=1.5", "at most 1"),
    ],
)
def test_cli_rejects_bad_pate_settings(setting, match, capsys):
    args = ["run", "pate", "--dataset", "digits", "--epsilon", "1", "--set", setting]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and match in err


# --- Page -----------------------------------------------------------------------------------------


def test_label_accuracy_by_agreement_bins_the_queries():
    from labeldp_core.plots import label_accuracy_by_agreement

    # Two agreement levels, 10 teachers: 4 queries at 10/10 (all right, one changed by noise,
    # one unanswered) and 2 at 5/10 (plurality wrong on one, both released labels wrong).
    figure = label_accuracy_by_agreement(
        top_votes=[10, 10, 10, 10, 5, 5],
        teachers=10,
        plurality=[1, 1, 1, 1, 2, 3],
        released=[1, 1, 0, -1, 0, 0],
        true_labels=[1, 1, 1, 1, 2, 2],
    )
    traces = {trace.name: trace for trace in figure.data}
    assert list(traces["plurality of the votes is right"].y) == [0.5, 1.0]
    assert list(traces["released (noisy) label is right"].y) == [0.0, pytest.approx(2 / 3)]
    assert list(traces["noise changed the answer"].y) == [1.0, pytest.approx(1 / 3)]
    assert list(traces["query answered"].y) == [1.0, 0.75]
    assert list(traces["query answered"].customdata) == [2, 4]


def test_without_noise_a_top_vote_at_the_threshold_is_answered_and_lnmax_is_the_argmax():
    # Written for surviving mutants: "reaches T" is >= T, and a scale of 0 adds no noise.
    counts = np.array([[7, 3, 0], [6, 4, 0], [2, 2, 6]])
    rng = np.random.default_rng(0)
    labels = confident_gnmax(counts, rng, threshold=7, threshold_sigma=0.0, gaussian_sigma=0.0)
    assert labels.tolist() == [0, UNANSWERED, UNANSWERED]
    assert noisy_argmax(counts, rng, laplace_scale=0.0).tolist() == [0, 0, 2]
    assert noisy_argmax(counts, rng, gaussian_sigma=0, noise="secure").tolist() == [0, 0, 2]
