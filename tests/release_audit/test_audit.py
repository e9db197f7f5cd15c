import json
import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.__main__ import main
from labeldp_core.errors import InvalidInputError
from labeldp_core.mechanisms import keep_probability
from labeldp_core.release_audit.bounds import clopper_pearson, epsilon_lower_bound
from labeldp_core.release_audit.engine import run_audit
from labeldp_core.services.release_audits import (
    APP_EPSILON,
    APP_TRIALS,
    CASES,
    app_audit_points,
    audit_case,
    audit_cases,
    stored_audit_case,
)

TRIALS = 300_000


@pytest.mark.parametrize(("k", "n"), [(0, 50), (7, 50), (50, 50), (1234, 100_000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n):
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    low, high = clopper_pearson(k, n, 0.05)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


def test_lower_bound_formula_on_a_hand_case():
    low, _ = clopper_pearson(600, 1000, 0.1)
    _, high = clopper_pearson(200, 1000, 0.1)
    assert epsilon_lower_bound(600, 1000, 200, 1000, 0.0, 0.1) == pytest.approx(
        math.log(low / high)
    )
    assert epsilon_lower_bound(10, 1000, 500, 1000, 0.0, 0.1) == 0.0


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_rr_is_consistent_and_its_overspending_control_is_caught(epsilon):
    rr, control = (
        run_audit(c, TRIALS, np.random.default_rng(11)) for c in audit_cases("rr", epsilon)
    )
    assert not rr.violates
    assert control.violates and control.is_control
    # RR is tight: the best event (label 0 kept) gets close to the claim from below.
    assert rr.epsilon_lower_bound > 0.9 * epsilon
    assert rr.p0 == pytest.approx(keep_probability(epsilon, 10), abs=5e-3)


def test_audit_cli_json_and_exit_status(capsys):
    code = main(["audit", "rr", "--epsilon", "1", "--trials", "100000", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in report["results"]]
    assert names[0] == "rr" and report["results"][1]["violates"] is True


def test_unknown_mechanism_and_bad_epsilon_are_clear_errors():
    with pytest.raises(InvalidInputError, match="audits exist for"):
        audit_cases("nope", 1.0)
    with pytest.raises(InvalidInputError, match="greater than 0"):
        audit_cases("rr", -1.0)


def test_a_stored_audit_case_is_computed_once_then_read_from_the_cache(cache, monkeypatch):
    from labeldp_core.services import release_audits as suite

    first = stored_audit_case("rr", 1.0, 0, 20_000, seed=3, cache=cache)
    assert first == audit_case("rr", 1.0, 0, 20_000, seed=3)
    monkeypatch.setattr(suite, "audit_case", lambda *args: pytest.fail("recomputed"))
    assert stored_audit_case("rr", 1.0, 0, 20_000, seed=3, cache=cache) == first
    # Another seed is another audit.
    with pytest.raises(pytest.fail.Exception, match="recomputed"):
        stored_audit_case("rr", 1.0, 0, 20_000, seed=4, cache=cache)


def test_the_app_audit_points_cover_every_case_of_every_audited_mechanism():
    points = app_audit_points()
    assert {mechanism for mechanism, *_ in points} == set(CASES)
    for mechanism in CASES:
        indices = [index for m, _, index, _, _ in points if m == mechanism]
        assert indices == list(range(len(audit_cases(mechanism, APP_EPSILON))))
    assert {(epsilon, trials, seed) for _, epsilon, _, trials, seed in points} == {
        (APP_EPSILON, APP_TRIALS, 0)
    }
