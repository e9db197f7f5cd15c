import pytest
from fake_results import store_clean_models

from labeldp_core.choosing import choice, make_target
from labeldp_core.choosing.choice import choose_epsilon
from labeldp_core.errors import InvalidInputError
from tests.choosing.fake_curves import FakeRuns, store_grid


@pytest.fixture
def runs(monkeypatch):
    fake = FakeRuns()
    monkeypatch.setattr(choice, "lookup", fake.lookup)
    monkeypatch.setattr(choice, "run", fake.run)
    return fake


def _choose(target=0.65, **kwargs):
    kwargs.setdefault("mechanisms", ["rr", "dpsgd"])
    return choose_epsilon("digits", make_target("accuracy", target), **kwargs)


def test_reading_the_cache_answers_from_the_grid_and_computes_nothing(runs):
    found = _choose()
    rr = found.answers[0]
    assert rr.mechanism == "rr" and rr.epsilon == pytest.approx(2**1.5)
    assert (rr.below, rr.above, rr.points, rr.seeds) == (2.0, 4.0, 7, 3)
    assert runs.computed == [] and found.trainings == 0 and found.missing == 0
    assert [a.mechanism for a in found.answers] == ["rr", "dpsgd"]  # dpsgd: 2^3 = 8, doubled 16


def test_compute_narrows_by_bisection_within_ten_percent_and_a_later_read_finds_the_points(runs):
    found = _choose(compute=True, max_trainings=30)
    rr = found.answers[0]
    assert rr.above <= 1.1 * rr.below and rr.epsilon == pytest.approx(2**1.5)
    assert rr.points > 7 and found.trainings == len(runs.computed) <= 30
    assert {c.seed for c in runs.computed} == {0, 1, 2}
    again = _choose()
    assert again.trainings == 0 and again.answers[0] == rr


def test_compute_stops_at_the_budget_a_point_at_a_time(runs):
    found = _choose(compute=True, max_trainings=4)
    assert found.trainings == len(runs.computed) == 3  # one point of 3 seeds; a second needs 6
    assert found.answers[0].points == 8


def test_an_epsilon_missing_a_seed_is_left_out_and_counted(monkeypatch):
    fake = FakeRuns(absent={("rr", 4.0, 1)})
    monkeypatch.setattr(choice, "lookup", fake.lookup)
    found = _choose(mechanisms=["rr"])
    assert found.missing == 1
    assert (found.answers[0].below, found.answers[0].above) == (2.0, 8.0)


def test_a_target_above_the_clean_model_is_refused_in_one_sentence(runs):
    with pytest.raises(InvalidInputError, match="above what the model trained on the true labels"):
        _choose(0.97)
    with pytest.raises(InvalidInputError, match=r"1\.\.10000"):
        _choose(compute=True, max_trainings=0)


def test_example_level_need_answers_with_example_level_mechanisms_only(runs):
    found = choose_epsilon(
        "digits", make_target("accuracy", 0.6, "example"), mechanisms=["rr", "dpsgd"]
    )
    assert [a.mechanism for a in found.answers] == ["dpsgd"]
    assert found.skipped[0][0] == "rr" and "not a whole example" in found.skipped[0][1]
    assert "no accountant here records" in found.to_dict()["notes"][0]


def test_the_answer_reads_results_stored_in_a_real_cache(cache, monkeypatch):
    fake = store_grid(cache)
    monkeypatch.setattr(choice, "run", lambda config, into: fake.store(config, into))
    found = choose_epsilon("digits", make_target("accuracy", 0.65), mechanisms=["rr"], cache=cache)
    assert found.answers[0].epsilon == pytest.approx(2**1.5) and found.answers[0].points == 7
    computed = _choose(mechanisms=["rr"], cache=cache, compute=True, max_trainings=3)
    assert computed.trainings == 3 and computed.answers[0].points == 8
    again = choose_epsilon("digits", make_target("accuracy", 0.65), mechanisms=["rr"], cache=cache)
    assert again.answers[0].points == 8 and again.trainings == 0


def test_the_answers_to_narrow_are_those_between_points_over_ten_percent_apart(runs):
    assert [a.mechanism for a in _choose().coarse] == ["rr", "dpsgd"]
    narrowed = _choose(mechanisms=["rr"], compute=True, max_trainings=30)
    assert narrowed.coarse == () and narrowed.reached


def test_the_next_runs_are_bisections_first_step_for_each_coarse_answer(runs):
    found = _choose()
    assert [(c.mechanism, c.epsilon, c.seed) for c in found.next_runs] == [
        ("rr", 2.83, 0),
        ("rr", 2.83, 1),
        ("rr", 2.83, 2),
        ("dpsgd", 5.66, 0),
        ("dpsgd", 5.66, 1),
        ("dpsgd", 5.66, 2),
    ]


def test_an_epsilon_the_mechanism_refuses_is_no_point_not_an_error(runs, monkeypatch):
    def refusing(config, cache=None):
        if config.epsilon not in (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0):
            raise InvalidInputError("not at this ε")
        return runs.lookup(config)

    monkeypatch.setattr(choice, "lookup", refusing)
    found = _choose(mechanisms=["rr"], compute=True, max_trainings=3)
    assert found.trainings == 0 and found.answers[0].points == 7


def test_within_p_points_is_measured_from_the_model_trained_on_the_true_labels(runs):
    # The DP prototypes' own reference (non-private prototypes, 0.8 here) is not that model.
    found = choose_epsilon("digits", make_target("within", 40), mechanisms=["rr", "dppl-mean"])
    assert found.target.clean == pytest.approx(0.95)
    assert "within 40 points of the clean model's 0.950, mean" in found.target.describe()
    rr, prototypes = found.answers
    assert rr.threshold == pytest.approx(0.55) == prototypes.threshold
    assert rr.epsilon == pytest.approx(2**0.5) and not prototypes.reached


@pytest.fixture
def cold(monkeypatch):
    """Nothing is cached: every point is computed (as the closed-form fake) when asked for."""
    fake = FakeRuns(cold=True)
    monkeypatch.setattr(choice, "lookup", fake.lookup)
    monkeypatch.setattr(choice, "run", fake.run)
    return fake


def _computed(fake):
    """The (mechanism, ε) points computed, in order, each once (its seeds run together)."""
    return list(dict.fromkeys((c.mechanism, c.epsilon) for c in fake.computed))


def test_fill_searches_coarsely_the_cheapest_first_then_bisects_on_the_grid_first(cold):
    found = _choose(mechanisms=["rr", "dppl-mean"], compute=True, fill=True, max_trainings=60)
    rr = found.answers[0]
    assert rr.mechanism == "rr" and rr.epsilon == pytest.approx(2**1.5)
    assert rr.above <= 1.1 * rr.below and found.unsettled == () and found.more_trainings == 0
    assert _computed(cold)[:9] == [
        ("dppl-mean", 0.3),  # trains no model: first; its grid's middle ε, not reached
        ("dppl-mean", 10.0),  # so up to its largest: reached, settled
        ("rr", 1.0),
        ("rr", 8.0),
        ("rr", 2.0),  # bisection, the best answer first: the grid's ε between 1 and 8 first
        ("rr", 4.0),
        ("rr", 2.83),  # then midpoints between neighbouring grid ε
        ("rr", 2.38),
        ("rr", 2.6),
    ]


def test_without_fill_compute_only_narrows_the_answers_there_are(cold):
    found = _choose(compute=True, max_trainings=30)
    assert found.answers == () and found.trainings == 0 and found.unsettled == ()


def test_a_budget_spent_before_an_answer_names_what_each_mechanism_still_needs(cold):
    found = _choose(compute=True, fill=True, max_trainings=4)
    assert found.trainings == 3 and not found.reached  # rr's middle ε: 0.5 < 0.65
    assert found.unsettled == (("rr", 3), ("dpsgd", 6)) and found.more_trainings == 9
    assert found.to_dict()["unsettled"] == [
        {"mechanism": "rr", "trainings": 3},
        {"mechanism": "dpsgd", "trainings": 6},
    ]


def test_a_mechanism_refusing_a_grid_epsilon_is_skipped_with_the_epsilon(cold, monkeypatch):
    def refusing(config, cache=None):
        if config.mechanism == "dpsgd" and config.epsilon == 8.0:
            raise InvalidInputError("cannot meet this ε")  # as a runner says so
        return cold.run(config)

    monkeypatch.setattr(choice, "run", refusing)
    found = _choose(compute=True, fill=True, max_trainings=60)
    assert [a.mechanism for a in found.answers] == ["rr"]
    assert ("dpsgd", "its run at ε = 8 was refused") in found.skipped


def test_within_p_points_is_measured_from_the_clean_line_the_pages_draw(runs, cache):
    # Once each demo seed's clean model is cached, the clean model is the pages' one number
    # (labeldp_core.choosing.clean_reference: their mean, 0.97), not the runs' own records (0.95).
    store_clean_models(cache, {0: 0.96, 1: 0.97, 2: 0.98})
    found = choose_epsilon("digits", make_target("within", 40), mechanisms=["rr"], cache=cache)
    assert found.target.clean == pytest.approx(0.97)
    assert found.answers[0].threshold == pytest.approx(0.57)
