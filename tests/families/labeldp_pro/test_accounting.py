"""LabelDP-Pro's accounting: DP-SGD's, read for a changed label, against dp_accounting's RDP."""

import math

import dp_accounting
import pytest
from dp_accounting.rdp import rdp_privacy_accountant

from labeldp_core.accounting.dpsgd import dpsgd_epsilon
from labeldp_core.families.labeldp_pro.accounting import (
    calibrate_label_noise,
    example_budget,
    label_epsilon,
)


def _google_rdp(sigma: float, q: float, steps: int, delta: float) -> float:
    accountant = rdp_privacy_accountant.RdpAccountant()
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(accountant.get_epsilon(delta))


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.0, 0.01, 1000), (4.0, 0.18, 240)])
def test_label_epsilon_is_twice_dp_sgd_rdp_by_dp_accounting(sigma, q, steps):
    delta = 1e-6
    epsilon, label_delta = label_epsilon(sigma, q, steps, delta, "rdp")
    assert epsilon == pytest.approx(2 * _google_rdp(sigma, q, steps, delta), rel=1e-3)
    assert label_delta == pytest.approx((1 + math.exp(epsilon / 2)) * delta)


@pytest.mark.parametrize("accountant", ["rdp", "prv"])
def test_accounting_equals_dp_sgd_for_the_same_noise_sampling_and_steps(accountant):
    epsilon, _ = label_epsilon(2.0, 0.05, 200, 1e-6, accountant)
    assert epsilon == 2 * dpsgd_epsilon(2.0, 0.05, 200, 1e-6, accountant)


@pytest.mark.parametrize("target", [0.1, 0.5, 1.0, 4.0])
def test_calibrated_noise_spends_at_most_the_label_budget(target):
    sigma = calibrate_label_noise(target, 1e-5, 256 / 1437, 240)
    _, example_delta = example_budget(target, 1e-5)
    epsilon, delta = label_epsilon(sigma, 256 / 1437, 240, example_delta, "rdp")
    assert 0.98 * target <= epsilon <= target
    assert delta <= 1e-5
