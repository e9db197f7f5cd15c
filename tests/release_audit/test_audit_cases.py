"""Every audit case: the real mechanism is not flagged, its control is, the tight ones come close.

Statistics. The audits here use ``ALPHA = 1e-3``: a correct mechanism is flagged only if one of
two Clopper-Pearson bounds fails, which happens with probability at most 1e-3 per case whatever
the seed, so the fixed seeds make the runs reproducible but the verdicts do not hang on them.

Trials. With ``TRIALS = 200_000`` draws per neighbour, an event of probability p is measured to
within about 3.3 sqrt(p (1 - p) / TRIALS) at this alpha, 1.3% (relative) for p = 1/4. The tight
cases' events have p between 1/16 and 3/4, so their bound lands within a few hundredths of the
claim (hence the fractions checked below), and every control leaks at least 1.5 times its
claim (2 times for most), far above it. Eight seeds at epsilon 0.5, 1 and 2 gave real cases at
most 0.99 of their claim and controls at least 1.39 times theirs. DP-SGD's and LabelDP-Pro's
audits at epsilon 2, whose draws are a model's gradient steps, take a tenth of them
(``FEWER_DRAWS``, with its statistics): together 8 s instead of 40 at load 3.
"""

import dataclasses
import json
import math

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.accounting import calibrate_noise, data_independent_epsilon
from labeldp_core.accounting.gaussian_curve import gaussian_delta, gaussian_point
from labeldp_core.experiments import MECHANISMS
from labeldp_core.families.dpsgd import audit as dpsgd_case_module
from labeldp_core.families.dpsgd.audit import dpsgd_noise_multiplier, one_step_epsilon
from labeldp_core.families.noisy_outputs.audit import SOFTMAX_PAIR
from labeldp_core.families.pate.audit import AUDIT_DELTA, pate_vote_pair
from labeldp_core.families.rr_prior.audit import RR_PRIOR
from labeldp_core.mechanisms import output_probabilities
from labeldp_core.plots import audit_figure
from labeldp_core.registry import mechanism_entries
from labeldp_core.release_audit.bounds import largest_provable_epsilon
from labeldp_core.release_audit.engine import GAUSSIAN_TAIL, run_audit
from labeldp_core.services.release_audits import (
    CASES,
    CONTROLS,
    audit_case,
    audit_cases,
    audit_mechanism,
)

ALPHA = 1e-3
TRIALS = 200_000
#: Fewer draws for the audits whose every 1,024 draws are a model's gradient step (DP-SGD's and
#: LabelDP-Pro's), at the epsilon the default suite audits them (issue 52: 23 and 6 s of CPU at
#: 200,000). The test asks two things of them, and 20,480 draws keep both far from chance. The
#: real case's bound must exceed 0.3 of its claim: at 200,000 (seed 3) it is 0.89 (DP-SGD, event
#: probabilities 0.235 and 0.119, delta 0.044) and 0.69 (LabelDP-Pro, 0.499 and 0.309, delta
#: 0.05); with the same probabilities at 20,480 the Clopper-Pearson bound is 0.73 and 0.61 of the
#: claim, its standard deviation 0.05 and 0.025 of it, so 0.3 is 8.6 and 12.3 deviations below.
#: Seeds 0-7 gave 0.67-0.83 and 0.53-0.65. The control must be caught: at 20,480 its bound is
#: 4.4-4.9 times the claim for DP-SGD (seeds 0-7), and LabelDP-Pro's control scores the same
#: with any noise (p0 = 1, p1 = 0: 15 times its claim at any seed). A real case is still flagged
#: with probability at most ALPHA, whatever the number of draws.
FEWER_DRAWS = {("dpsgd", 2.0): 20_480, ("labeldp-pro", 2.0): 20_480}


def tight_cases() -> dict[str, float]:
    """Cases whose best event has a likelihood ratio of exactly e^ε, with the share of the claim
    their bound must reach at ε = 1, as each family declares (``Audit.tight``)."""
    return {m.id: m.audit.tight for m in mechanism_entries() if m.audit and m.audit.tight}


def not_audited() -> dict[str, str]:
    """Mechanisms with no audit case of their own, and why, as each declares (``not_audited``)."""
    return {m.id: m.not_audited for m in mechanism_entries() if m.not_audited}


def test_every_registered_mechanism_has_an_audit_case_or_says_why_not():
    # A new family without an audit fails here, unless it says why (not a list to keep in step).
    assert set(CASES) == set(MECHANISMS) - set(not_audited())
    assert not set(CASES) & set(not_audited()), "an audited mechanism says it is not audited"
    assert {"rr", "rr-prior", "laplace"} <= set(CONTROLS)
    assert "lp-2st" in not_audited()


def slow_audits() -> dict[str, tuple[float, ...]]:
    """The audits that take tens of seconds each (a model's gradients per trial), at which ε: each
    such mechanism is audited at the other ε by default, at this one by `make test-slow`."""
    return {m.id: m.audit.slow_at for m in mechanism_entries() if m.audit and m.audit.slow_at}


def audit_points() -> list:
    """Every audited mechanism at ε 0.5 and 2, those its family declares slow marked slow."""
    slow = slow_audits()
    return [
        pytest.param(m, e, marks=[pytest.mark.slow] if e in slow.get(m, ()) else [])
        for m in CASES
        for e in (0.5, 2.0)
    ]


@pytest.mark.parametrize(("mechanism", "epsilon"), audit_points())
def test_real_mechanism_passes_and_its_control_is_flagged(mechanism, epsilon):
    trials = FEWER_DRAWS.get((mechanism, epsilon), TRIALS)
    results = audit_mechanism(mechanism, epsilon, trials, seed=3, alpha=ALPHA)
    real = [r for r in results if not r.is_control]
    controls = [r for r in results if r.is_control]
    assert real and len(controls) == len(CONTROLS.get(mechanism, ()))
    for result in real:
        assert not result.violates, result
        if "order" not in result.name:  # it has power (the order case's is its control)
            assert result.epsilon_lower_bound > 0.3 * result.claimed_epsilon, result
    for result in controls:
        assert result.violates, result


@pytest.mark.parametrize("mechanism", list(tight_cases()))
def test_tight_cases_reach_most_of_their_claim(mechanism):
    result = audit_case(mechanism, 1.0, 0, TRIALS, seed=5, alpha=ALPHA)
    assert tight_cases()[mechanism] <= result.epsilon_lower_bound <= 1.0


def test_laplace_score_peaks_on_the_event_of_largest_loss():
    # Score 2 means o_0 >= 1 and o_1 <= 0: probability 1/4 for label 0, e^-1 / 4 for label 1.
    case = audit_cases("laplace", 1.0)[0]
    rng = np.random.default_rng(5)
    peak = [float(np.mean(case.sample(label, TRIALS, rng) == 2.0)) for label in (0, 1)]
    tolerance = 3.3 * math.sqrt(0.25 * 0.75 / TRIALS)  # binomial, two-sided at alpha 1e-3
    assert peak[0] == pytest.approx(0.25, abs=tolerance)
    assert peak[1] == pytest.approx(0.25 * math.exp(-1.0), abs=tolerance)


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 8.0])
def test_rr_prior_neighbours_are_the_tight_pair_at_every_epsilon(epsilon):
    # Both labels are in the top-k* set, so 'released 0' has the ratio e^epsilon exactly.
    rows = np.stack([RR_PRIOR, RR_PRIOR])
    probabilities = output_probabilities(rows, np.array([0, 1]), epsilon)
    assert probabilities[0, 0] / probabilities[1, 0] == pytest.approx(math.exp(epsilon))


def test_neighbouring_inputs_are_neighbours():
    first, second = pate_vote_pair()
    assert first.sum() == second.sum()  # same teachers
    assert np.abs(first - second).sum() == 2  # one vote moved
    assert first.min() >= 0 and second.min() >= 0
    p, q = SOFTMAX_PAIR
    assert p.sum() == pytest.approx(1) and q.sum() == pytest.approx(1)
    assert np.abs(p - q).sum() == pytest.approx(2)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_gaussian_claims_are_points_of_the_exact_curve_at_the_accounted_noise(epsilon):
    # The noise comes from the accounting for (epsilon, 1e-5); the claim audited is a point of
    # the Gaussian mechanism's exact curve at that noise, which the (epsilon, 1e-5) implies.
    sigma = dpsgd_noise_multiplier(epsilon)
    assert one_step_epsilon(sigma) == pytest.approx(epsilon, rel=1e-3)
    dpsgd, _ = audit_cases("dpsgd", epsilon)
    assert (dpsgd.claimed_epsilon, dpsgd.claimed_delta) == gaussian_point(1 / sigma, GAUSSIAN_TAIL)
    pate_sigma = calibrate_noise(epsilon, 1, AUDIT_DELTA, aggregator="gnmax")
    gnmax = audit_cases("pate", epsilon)[1]
    exact = gaussian_point(math.sqrt(2) / pate_sigma, GAUSSIAN_TAIL)
    assert (gnmax.claimed_epsilon, gnmax.claimed_delta) == exact
    for case in (dpsgd, gnmax):  # on the curve: the accounted point is looser, never tighter
        mu = 1 / sigma if case is dpsgd else math.sqrt(2) / pate_sigma
        assert gaussian_delta(epsilon, mu) <= AUDIT_DELTA
        assert gaussian_delta(case.claimed_epsilon, mu) == pytest.approx(case.claimed_delta)
    assert data_independent_epsilon(1, AUDIT_DELTA, aggregator="lnmax", noise=2 / epsilon) < epsilon


@pytest.mark.parametrize("epsilon", [0.001, 100.0])
def test_extreme_epsilons_run_and_stay_below_the_ceiling(epsilon):
    ceiling = largest_provable_epsilon(2_000, 0.05)
    for mechanism in CASES:
        for case in audit_cases(mechanism, epsilon):
            result = run_audit(case, 2_000, np.random.default_rng(0))
            assert 0.0 <= result.epsilon_lower_bound <= ceiling + 1e-9
            assert not (result.violates and not result.is_control), result


def test_case_seeds_are_independent_of_the_order_cases_run_in():
    everything = audit_mechanism("pate", 1.0, 20_000, seed=7)
    assert audit_case("pate", 1.0, 2, 20_000, seed=7) == everything[2]


def test_cli_audits_pate_lnmax_gnmax_and_control(capsys):
    code = main(["audit", "pate", "--epsilon", "1", "--trials", "50000", "--json"])
    assert code == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["is_control"] for r in results] == [False, False, True, True]
    assert 0 < results[1]["claimed_delta"] < 0.1 and results[0]["claimed_delta"] == 0
    assert results[2]["violates"] and not results[0]["violates"]


def test_audit_figure_shows_claims_and_bounds():
    results = audit_mechanism("laplace", 1.0, 20_000)
    figure = audit_figure(results, ceiling=largest_provable_epsilon(20_000, 0.05))
    bars, points = figure.data
    assert list(bars.x) == [r.claimed_epsilon for r in results]
    assert list(points.x) == [r.epsilon_lower_bound for r in results]
    assert points.marker.color[0] != points.marker.color[1]  # consistent vs violating
    assert not figure.layout.shapes  # the ceiling (about 8) is far beyond 2: not drawn


def powerful_cases() -> list[tuple[str, int]]:
    """Cases whose power the families declare (``Audit.powerful``: PATE, DP-SGD, the DP
    prototypes and the tight ones): at the command line's 500,000 draws each would catch a 10%
    overspend (claim / bound < 1.1)."""
    return [(m.id, i) for m in mechanism_entries() if m.audit for i in m.audit.powerful]


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "index"), powerful_cases())
def test_privacy_critical_cases_would_catch_a_ten_percent_overspend(mechanism, index):
    result = audit_case(mechanism, 1.0, index, 500_000, seed=0)
    assert not result.violates
    assert result.detectable_overspend < 0.10, result
    assert result.to_dict()["detectable_overspend"] == result.detectable_overspend


@pytest.mark.slow
def test_a_dpsgd_step_with_ten_percent_less_noise_is_caught():
    # The power estimate above, checked directly on the project's own step: the noise
    # multiplier divided by 1.1 while the claim stays the calibrated one.
    honest = audit_cases("dpsgd", 1.0)[0]
    sigma = dpsgd_noise_multiplier(1.0)

    def sample(which, trials, rng):
        return dpsgd_case_module._project_steps(
            sigma / 1.1, 1.0, which == 0, trials, int(rng.integers(2**62))
        )

    planted = dataclasses.replace(honest, sample=sample, is_control=True)
    assert run_audit(planted, 500_000, np.random.default_rng(0)).violates
