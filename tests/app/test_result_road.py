"""One road from a page to a stored result (issue 55, section 3).

A page asks :func:`ui.results.result_for` for its point; that one function looks the point up,
estimates what a missing one takes, and computes it. A result comes back from memory as the
same :class:`RunResult` object, never decoded again; a built-in dataset's point never enters the
code that keeps a user's own tables; and ε, checked once where the config is made, is not checked
again on the way to the store.
"""

import sys
from pathlib import Path

import pytest
from app_helpers import assert_no_errors, open_page

import ui.results
from labeldp_core.data import table_results, tables
from labeldp_core.experiments import RunResult, make_config, road, run, runner
from labeldp_core.experiments.runner import result_key
from labeldp_core.registry import registration

RR_PAGE = "pages/randomized_response.py"


@pytest.fixture
def table_code_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The datasets for which a table's result cache was asked, wherever it is imported."""
    calls: list[str] = []
    original = table_results.results_cache

    def spy(cache, dataset):
        calls.append(dataset)
        return original(cache, dataset)

    for module in list(sys.modules.values()):
        if getattr(module, "results_cache", None) is original:
            monkeypatch.setattr(module, "results_cache", spy)
    return calls


def test_the_page_reaches_its_stored_point_through_result_for(monkeypatch):
    config = make_config("rr", "digits", 2.0, epochs=1)
    stored = run(config, ui.results.result_cache())
    asked = []
    original = ui.results.result_for

    def spy(config, *args, **kwargs):
        asked.append(config)
        return original(config, *args, **kwargs)

    monkeypatch.setattr(ui.results, "result_for", spy)
    app = open_page(RR_PAGE, epsilon="2", epochs="1")
    assert_no_errors(app)
    assert config in asked
    assert {m.label: m.value for m in app.metric}["Test accuracy"] == (
        f"{stored.test_accuracy:.3f}"
    )


def test_a_stored_result_comes_back_as_the_same_object():
    config = make_config("rr", "digits", 2.0, epochs=1)
    run(config, ui.results.result_cache())
    first = ui.results.stored(config)
    assert first is not None and first.epsilon == 2.0
    assert ui.results.stored(config) is first
    assert ui.results.stored(make_config("rr", "digits", 2.0, epochs=1)) is first


def test_a_built_in_dataset_never_enters_the_table_code(table_code_calls):
    app = open_page(RR_PAGE, epsilon="2", epochs="1")  # looks up, estimates and computes
    assert_no_errors(app)
    assert {m.label: m.value for m in app.metric}["ε spent"] == "2"
    assert table_code_calls == []


def test_a_built_in_datasets_point_runs_no_line_of_the_table_code():
    """Looking a digits point up, estimating it, computing, storing and reading it again runs
    no function of the modules that keep a user's tables, not even the test of a table's id:
    a built-in dataset is told by its name (issue 55). Every call is watched, wherever the
    function was imported."""
    config = make_config("rr", "digits", 2.0, epochs=1)
    table_code = {Path(tables.__file__), Path(table_results.__file__)}
    ran: list[str] = []

    def watch(frame, event, arg):
        if event == "call" and Path(frame.f_code.co_filename) in table_code:
            ran.append(frame.f_code.co_name)

    sys.setprofile(watch)
    try:
        computed = ui.results.result_for(config, "Compute", "Training")
        again = ui.results.result_for(config, "Compute", "Training")
    finally:
        sys.setprofile(None)
    assert computed is not None and not computed.cached and again.cached
    assert ran == []


def test_a_table_is_kept_by_the_table_code(table_code_calls, cache):
    from labeldp_core.data.tables import add_table, example_table

    info = add_table(example_table("wine"), "class", "wine", root=cache.directory)
    config = make_config("rr", info.id, 2.0, epochs=1)
    assert ui.results.stored(config) is None
    assert table_code_calls == [info.id]


def test_epsilon_is_checked_once_and_a_stored_result_read_once(monkeypatch):
    """ε is checked where the config is made; a stored result is checked (its ε spent against
    its ε, :func:`~labeldp_core.engine.result_schema.check_result_dict`) once, when it is read
    from disk, not again on every look of a page."""
    checks, reads = [], []
    check_epsilon, from_dict = runner.check_epsilon, RunResult.from_dict.__func__

    def counted_check(epsilon, *args):
        checks.append(epsilon)
        return check_epsilon(epsilon, *args)

    def counted_read(cls, data, **overrides):
        reads.append(data["epsilon"])
        return from_dict(cls, data, **overrides)

    monkeypatch.setattr(runner, "check_epsilon", counted_check)
    monkeypatch.setattr(RunResult, "from_dict", classmethod(counted_read))
    config = make_config("rr", "digits", 2.0, epochs=1)
    run(config, ui.results.result_cache())
    for _ in range(3):  # three runs of a page
        assert ui.results.stored(config) is not None
        assert ui.results.estimate([config]) is not None
    assert checks == [2.0]
    assert reads == [2.0]


def test_a_bad_epsilon_is_refused_once_with_its_fix():
    app = open_page(RR_PAGE, epsilon="-1", epochs="1")
    assert not app.exception
    errors = [e.value for e in app.error]
    assert len(errors) == 1, errors
    assert "epsilon must be greater than 0" in errors[0] and "try epsilon=0.1" in errors[0]


def _spied(monkeypatch: pytest.MonkeyPatch, module, name: str, argument: int) -> list:
    """The ``argument``-th argument of every call of ``module.name`` from now on."""
    calls = []
    original = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(args[argument])
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_the_road_finds_a_points_store_once(monkeypatch):
    """``result_for`` asks which store keeps the point's dataset once; the runner's road takes
    that store as given (a user's table keeps its results in a store of its own), instead of
    asking again on every look-up and every computation."""
    asked = _spied(monkeypatch, runner, "results_store", 1)
    config = make_config("rr", "digits", 2.0, epochs=1)
    cache = ui.results.result_cache()
    assert runner.stored_result(config, cache, registration("rr")) is None
    assert runner.computed_result(config, cache).epsilon_spent == 2.0
    assert runner.stored_result(config, cache, registration("rr")).cached
    assert asked == []


def test_the_road_names_its_code_unit_from_above():
    """The runner hands the result's code unit down to the cache key (the registry keeps it),
    so the cache never climbs back up to the registry to find a mechanism's family: a key of a
    mechanism's entry that names no unit is refused, never keyed under a guessed family."""
    config = make_config("rr", "digits", 2.0, epochs=1)
    store = ui.results.result_cache()
    assert runner.stored_result(config, store, registration("rr")) is None
    computed = runner.computed_result(config, store)
    assert runner.stored_result(config, store, registration("rr")).flip_rate == computed.flip_rate
    assert store.get_json(result_key(store, config))["epsilon"] == 2.0
    with pytest.raises(ValueError, match="name the code unit"):
        store.key("result", config.to_dict())


def test_a_point_the_page_found_missing_is_computed_without_a_second_look(monkeypatch):
    """``result_for`` looks the point up once; computing it (the page's own thread here) does
    not read the store again for it before training, and stores it for the next look."""
    looks = _spied(monkeypatch, runner, "_stored", 1)
    config = make_config("rr", "digits", 2.0, epochs=1)
    computed = ui.results.result_for(config, "Compute", "Training")
    assert computed is not None and not computed.cached and computed.epsilon_spent == 2.0
    assert looks == [config]
    assert ui.results.stored(config).flip_rate == computed.flip_rate


def test_a_point_the_page_found_missing_is_computed_into_the_store_its_look_found(monkeypatch):
    """``result_for`` asks which store keeps the point's dataset, and what the registry says of
    its mechanism, once, for the look, the estimate and the computation: a missing point's plan
    carries them to the computation (:meth:`~labeldp_core.experiments.road.Road.computed`)."""
    asked = _spied(monkeypatch, road, "results_store", 1)
    registered = _spied(monkeypatch, road, "registration", 0)
    registered_again = _spied(monkeypatch, runner, "registration", 0)
    config = make_config("rr", "digits", 2.0, epochs=1)
    computed = ui.results.result_for(config, "Compute", "Training")
    assert computed is not None and not computed.cached and computed.epsilon_spent == 2.0
    assert asked == ["digits"]
    assert registered == ["rr"] and registered_again == []
