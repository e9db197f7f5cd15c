"""DP-SGD accounting: Opacus's accountants against Google's dp_accounting and exact references."""

import logging
import math
import re

import dp_accounting
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant
from scipy import integrate, optimize, stats

from labeldp_core.accounting import (
    calibrate_noise_multiplier,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampled_gaussian,
    sampling_schedule,
)
from labeldp_core.accounting import dpsgd as dpsgd_accounting
from labeldp_core.accounting.dpsgd import CALIBRATION_RTOL
from labeldp_core.accounting.sampled_gaussian import (
    PRV_EPSILON_ERROR,
    RDP_ORDERS,
    prv_grid_points,
    rdp_per_step,
    rdp_to_epsilon,
)
from labeldp_core.errors import InvalidInputError

# (q, sigma, steps, delta): fashion-mnist with batch 256 for 5 epochs, then other typical runs,
# then large sample rates (digits with batch 256, q = 0.1) where small orders matter.
DPSGD_POINTS = [
    (256 / 60000, 1.0, 1175, 1e-5),
    (0.01, 1.1, 5000, 1e-5),
    (1024 / 60000, 2.0, 300, 1e-5),
    (0.02, 4.0, 10000, 1e-5),
]
LARGE_Q_POINTS = [
    (0.004, 0.6, 2000, 1e-6),
    (256 / 1437, 2.0, 240, 1e-5),
    (0.1, 1.0, 100, 1e-5),
]
INTEGER_ORDERS = [order for order in RDP_ORDERS if float(order).is_integer()]
# PRV and PLD cost seconds per point on this machine: two by default, the rest with -m slow.
PLD_POINTS = [DPSGD_POINTS[0], LARGE_Q_POINTS[1]] + [
    pytest.param(*point, marks=pytest.mark.slow)
    for point in DPSGD_POINTS[1:] + LARGE_Q_POINTS[:1] + LARGE_Q_POINTS[2:]
]


@pytest.fixture(autouse=True)
def _quiet_dp_accounting():
    # dp_accounting logs a warning per fractional order it gives up on (see below).
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def _event(q: float, sigma: float, steps: int) -> dp_accounting.DpEvent:
    step = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    return dp_accounting.SelfComposedDpEvent(step, steps)


def _google_rdp(q, sigma, steps, delta, orders) -> float:
    accountant = dp_accounting.rdp.RdpAccountant(orders)
    accountant.compose(_event(q, sigma, steps))
    return accountant.get_epsilon(delta)


def _google_pld(q, sigma, steps, delta) -> float:
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(_event(q, sigma, steps))
    return accountant.get_epsilon(delta)


def test_orders_are_dp_accountings_default_grid():
    assert tuple(rdp_privacy_accountant.DEFAULT_RDP_ORDERS) == RDP_ORDERS


@pytest.mark.parametrize(("q", "sigma", "steps", "delta"), DPSGD_POINTS + LARGE_Q_POINTS)
def test_rdp_agrees_with_dp_accounting_on_the_same_integer_orders(q, sigma, steps, delta):
    ours = rdp_to_epsilon(steps * rdp_per_step(q, sigma, INTEGER_ORDERS), delta, INTEGER_ORDERS)
    assert ours == pytest.approx(_google_rdp(q, sigma, steps, delta, INTEGER_ORDERS), abs=1e-3)


@pytest.mark.parametrize(("q", "sigma", "steps", "delta"), DPSGD_POINTS)
def test_rdp_agrees_with_dp_accounting_on_the_full_default_grid(q, sigma, steps, delta):
    ours = dpsgd_epsilon(sigma, q, steps, delta, accountant="rdp")
    assert ours == pytest.approx(_google_rdp(q, sigma, steps, delta, RDP_ORDERS), abs=1e-3)


@pytest.mark.parametrize(("q", "sigma"), [(256 / 1437, 2.0), (0.5, 5.0), (0.01, 0.7)])
@pytest.mark.parametrize("order", [1.4, 1.8, 2.5, 3.7])
def test_fractional_orders_match_numerical_integration(q, sigma, order):
    # With add/remove neighbours the sampled Gaussian's RDP is log E_{z~N(0, s^2)}[
    # ((1-q) + q exp((2z-1)/(2 s^2)))^a] / (a-1) (Mironov, Talwar, Zhang 2019). Opacus's series
    # matches this integral; dp_accounting 0.6 does not at fractional orders (it sums the
    # binomial series with |C(a, i)|, dropping the signs), which is why the grid test above
    # uses integer orders at large q: there its epsilons come out up to 0.02 higher.
    def integrand(z: float) -> float:
        ratio = (1 - q) + q * np.exp((2 * z - 1) / (2 * sigma**2))
        return stats.norm.pdf(z, scale=sigma) * ratio**order

    moment, _ = integrate.quad(integrand, -60 * sigma, 60 * sigma, limit=500, epsabs=1e-14)
    exact = math.log(moment) / (order - 1)
    assert rdp_per_step(q, sigma, [order])[0] == pytest.approx(exact, rel=1e-6)


@pytest.mark.parametrize(("q", "sigma", "steps", "delta"), PLD_POINTS)
def test_prv_agrees_with_dp_accountings_pld(q, sigma, steps, delta):
    prv = dpsgd_epsilon(sigma, q, steps, delta, accountant="prv")
    pld = _google_pld(q, sigma, steps, delta)
    # Opacus reports the upper end of an interval of width PRV_EPSILON_ERROR; PLD discretises
    # the loss at 1e-4 pessimistically. Both bound the same true epsilon.
    assert pld - 1e-3 <= prv <= pld + PRV_EPSILON_ERROR + 2e-3
    assert prv <= dpsgd_epsilon(sigma, q, steps, delta, accountant="rdp")


@pytest.mark.parametrize(("sigma", "steps", "delta"), [(2.0, 10, 1e-5), (5.0, 100, 1e-5)])
def test_full_batch_matches_the_exact_gaussian_privacy_profile(sigma, steps, delta):
    # With q = 1, T Gaussian steps are mu-GDP with mu = sqrt(T)/sigma, whose exact profile is
    # delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle and Wang 2018).
    mu = math.sqrt(steps) / sigma

    def excess(eps: float) -> float:
        tail = stats.norm.cdf(-eps / mu - mu / 2)
        return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * tail - delta

    exact = optimize.brentq(excess, 0, 100, xtol=1e-12)
    prv = dpsgd_epsilon(sigma, 1.0, steps, delta, accountant="prv")
    assert exact <= prv <= exact + PRV_EPSILON_ERROR + 1e-3
    # RDP is a valid but loose bound; its q = 1 RDP is exactly alpha T / (2 sigma^2).
    rdp = dpsgd_epsilon(sigma, 1.0, steps, delta, accountant="rdp")
    orders = np.asarray(RDP_ORDERS)
    closed = rdp_to_epsilon(orders * steps / (2 * sigma**2), delta)
    assert rdp == pytest.approx(closed, rel=1e-12)
    assert rdp > exact


def test_epsilon_curve_matches_pointwise_epsilons():
    q, sigma, delta = 256 / 60000, 1.0, 1e-5
    steps = [235, 470, 1175]
    curve = dpsgd_epsilon_curve(sigma, q, steps, delta)
    assert curve == pytest.approx([dpsgd_epsilon(sigma, q, s, delta) for s in steps], rel=1e-12)
    assert curve[0] < curve[1] < curve[2]


def test_sampling_schedule():
    assert sampling_schedule(60000, 256, 5) == (256 / 60000, 5 * 235)
    assert sampling_schedule(1437, 1437, 3) == (1.0, 3)


@pytest.mark.parametrize(
    ("accountant", "target", "n", "batch", "epochs"),
    [
        ("rdp", 1.0, 60000, 256, 5),
        ("prv", 1.0, 60000, 256, 5),
        ("rdp", 8.0, 1437, 256, 40),
        pytest.param("prv", 8.0, 1437, 256, 40, marks=pytest.mark.slow),
    ],
)
def test_calibration_meets_the_target_within_tolerance(accountant, target, n, batch, epochs):
    q, steps = sampling_schedule(n, batch, epochs)
    sigma = calibrate_noise_multiplier(target, 1e-5, q, steps, accountant)
    spent = dpsgd_epsilon(sigma, q, steps, 1e-5, accountant)
    assert target * (1 - CALIBRATION_RTOL) <= spent <= target
    # ... and it is the least noise that does: 3% less noise overspends.
    assert dpsgd_epsilon(0.97 * sigma, q, steps, 1e-5, accountant) > target


@pytest.mark.filterwarnings("ignore:Optimal order is the largest alpha")
def test_calibration_agrees_with_opacus_helper():
    from opacus.accountants.utils import get_noise_multiplier

    q, steps = sampling_schedule(60000, 256, 5)
    theirs = get_noise_multiplier(
        target_epsilon=3.0, target_delta=1e-5, sample_rate=q, steps=steps, epsilon_tolerance=0.01
    )
    ours = calibrate_noise_multiplier(3.0, 1e-5, q, steps, "rdp")
    # Opacus searches its own order grid (up to 63) to an absolute 0.01 in epsilon.
    assert ours == pytest.approx(theirs, rel=0.02)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sample_rate": 1.5}, r"sample_rate must lie in \(0, 1\].*batch no larger"),
        ({"sample_rate": 0.0}, r"sample_rate must lie in \(0, 1\]"),
        ({"delta": 1.0}, r"delta must lie in \(0, 1\).*e\.g\. delta=1e-5"),
        ({"delta": 0.0}, r"delta must lie in \(0, 1\)"),
        ({"delta": float("nan")}, "finite"),
        ({"noise_multiplier": 0.0}, "greater than 0.*noise_multiplier=1"),
        ({"noise_multiplier": -1.0}, "greater than 0"),
        ({"steps": 0}, "at least 1"),
        ({"steps": 2.5}, "whole number"),
        ({"accountant": "gdp"}, "choose one of: rdp, prv"),
    ],
)
def test_bad_parameters_give_clear_errors(kwargs, match):
    arguments = {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 100, "delta": 1e-5}
    with pytest.raises(InvalidInputError, match=match):
        dpsgd_epsilon(**(arguments | kwargs))


def test_bad_calibration_and_schedule_inputs_give_clear_errors():
    with pytest.raises(InvalidInputError, match="sample rate would exceed 1"):
        sampling_schedule(1437, 2000, 1)
    with pytest.raises(InvalidInputError, match=r"delta must lie in \(0, 1\)"):
        calibrate_noise_multiplier(1.0, 1.0, 0.01, 100)
    with pytest.raises(InvalidInputError, match="greater than 0"):
        calibrate_noise_multiplier(0.0, 1e-5, 0.01, 100)


# --- input checks at their boundaries (written for mutants that survived `make mutation`) ------


@pytest.mark.parametrize(
    ("check", "value", "words"),
    [
        (dpsgd_accounting.check_clip, 0.0, "clip (the bound"),
        (dpsgd_accounting.check_delta, 0.0, "delta must lie in (0, 1)"),
        (dpsgd_accounting.check_noise_multiplier, True, "noise_multiplier must be a finite"),
        (dpsgd_accounting.check_sample_rate, "0.5", "sample_rate must be a finite"),
        (dpsgd_accounting.check_delta, float("nan"), "delta must be a finite"),
        (dpsgd_accounting.check_clip, None, "clip must be a finite"),
    ],
)
def test_bad_privacy_parameters_are_refused_by_name(check, value, words):
    with pytest.raises(InvalidInputError, match=re.escape(words)):
        check(value)


def test_the_smallest_valid_values_are_accepted():
    assert dpsgd_accounting.check_steps(1) == 1
    assert dpsgd_accounting.check_clip(1e-9) == 1e-9
    assert dpsgd_accounting.sampling_schedule(1, 1, 1) == (1.0, 1)


@pytest.mark.parametrize(
    ("n", "batch", "epochs", "name"),
    [(10, True, 1, "batch"), (10, 2, 0, "epochs"), (0, 1, 1, "n_examples"), (10, 2.0, 1, "batch")],
)
def test_the_schedule_names_the_bad_count(n, batch, epochs, name):
    with pytest.raises(InvalidInputError, match=f"^{name} must be a whole number"):
        dpsgd_accounting.sampling_schedule(n, batch, epochs)


@pytest.mark.parametrize(
    ("q", "sigma", "steps", "delta"),
    [
        *DPSGD_POINTS,
        *LARGE_Q_POINTS,
        (256 / 1437, 1.6765, 30, 1e-5),  # digits' recipe at epsilon 10, its first checkpoint
        (256 / 1437, 94.3, 240, 1e-5),  # and at epsilon 0.1
        (0.3, 0.5, 3, 1e-3),
    ],
)
@pytest.mark.filterwarnings("ignore:Optimal order is the largest alpha")  # Opacus's own grid
def test_the_prv_grid_is_opacus_own_to_the_last_bit(q, sigma, steps, delta):
    # Its half-width comes from RDP computed by sgm_rdp instead of Opacus's slow series.
    from opacus.accountants import PRVAccountant
    from opacus.accountants.analysis.prv import PoissonSubsampledGaussianPRV

    theirs = PRVAccountant()._get_domain(
        prvs=[PoissonSubsampledGaussianPRV(q, sigma)],
        num_self_compositions=[steps],
        eps_error=PRV_EPSILON_ERROR,
        delta_error=delta / 1000,
    )
    ours = sampled_gaussian._prv_domain(q, sigma, steps, PRV_EPSILON_ERROR, delta / 1000)
    assert (ours.t_min, ours.t_max, ours.size) == (theirs.t_min, theirs.t_max, theirs.size)


def test_a_prv_grid_never_runs_opacus_slow_rdp_series(monkeypatch):
    slow = []
    monkeypatch.setattr(
        "opacus.accountants.analysis.rdp._compute_rdp", lambda *args: slow.append(args)
    )
    sampled_gaussian._prv_epsilon.cache_clear()
    assert sampled_gaussian.prv_epsilon(256 / 1437, 2.05, 240, 1e-5) > 0
    assert slow == []


def test_the_prv_grid_checked_is_the_one_the_accountant_uses(monkeypatch):
    # The grid is built once, its size checked, and the accountant composes on that very grid.
    from opacus.accountants import PRVAccountant
    from opacus.accountants.analysis import prv as opacus_prv

    sizes = []
    real = opacus_prv.discretize

    def recording(tprv, domain):
        sizes.append(domain.size)
        return real(tprv, domain)

    monkeypatch.setattr("opacus.accountants.prv.discretize", recording)
    sampled_gaussian._prv_epsilon.cache_clear()  # computed here, not remembered from elsewhere
    q, sigma, steps, delta = 256 / 60000, 0.8, 1175, 1e-5
    epsilon = sampled_gaussian.prv_epsilon(q, sigma, steps, delta)
    expected = PRVAccountant()
    expected.history = [(sigma, q, steps)]
    assert epsilon == expected.get_epsilon(delta, eps_error=PRV_EPSILON_ERROR)
    assert sizes[0] == prv_grid_points(q, sigma, steps, delta)


def test_the_accountants_answers_are_remembered_and_the_grid_cap_is_part_of_the_question(
    monkeypatch,
):
    q, sigma, steps, delta = 256 / 60000, 0.9, 1175, 1e-5
    assert rdp_per_step(q, sigma) is not rdp_per_step(q, sigma)  # a copy each time
    assert np.array_equal(rdp_per_step(q, sigma), rdp_per_step(q, sigma))
    first = sampled_gaussian.prv_epsilon(q, sigma, steps, delta)
    monkeypatch.setattr("opacus.accountants.PRVAccountant.get_epsilon", None)  # not called again
    assert sampled_gaussian.prv_epsilon(q, sigma, steps, delta) == first
    points = prv_grid_points(q, sigma, steps, delta)
    monkeypatch.setattr(sampled_gaussian, "PRV_MAX_POINTS", points - 1)
    with pytest.raises(InvalidInputError, match="would need"):
        sampled_gaussian.prv_epsilon(q, sigma, steps, delta)  # a lower cap is a new question


def test_a_prv_grid_over_the_cap_is_refused_before_it_is_built(monkeypatch):
    # The link that took 10 GB: epsilon 98, 80 epochs of batch 1024 on 60,000, delta 1e-3.
    built = []
    monkeypatch.setattr("opacus.accountants.PRVAccountant.get_epsilon", built.append)
    q, steps = sampling_schedule(60_000, 1024, 80)
    with pytest.raises(InvalidInputError, match=r"would need 5,2\d\d,\d{3} grid points.*rdp"):
        dpsgd_epsilon(0.399, q, steps, 1e-3, "prv")
    with pytest.raises(InvalidInputError, match="use accountant=rdp"):
        calibrate_noise_multiplier(98.0, 1e-3, q, steps, "prv")
    assert built == []


def test_prv_calibration_steps_around_sigmas_too_fine_to_account(monkeypatch):
    # A cap between the RDP answer's grid and the grids below it: the search treats the finer
    # sigmas as too little noise, and still answers within the target by PRV's own count.
    q, steps, delta, target = 256 / 60_000, 1175, 1e-5, 3.0
    rdp_sigma = calibrate_noise_multiplier(target, delta, q, steps, "rdp")
    cap = prv_grid_points(q, rdp_sigma * 0.999, steps, delta)
    monkeypatch.setattr(sampled_gaussian, "PRV_MAX_POINTS", cap)
    sigma = calibrate_noise_multiplier(target + 1e-9, delta, q, steps, "prv")
    assert prv_grid_points(q, sigma, steps, delta) <= cap
    assert dpsgd_epsilon(sigma, q, steps, delta, "prv") <= target
