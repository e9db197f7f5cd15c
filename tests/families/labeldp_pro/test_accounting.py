"""LabelDP-Pro's accounting, both readings of a changed label, against dp_accounting itself.

Replace-one: dp_accounting's PLD accountant with ``NeighboringRelation.REPLACE_ONE``; group
privacy: twice DP-SGD's add/remove RDP epsilon. Each at three points.
"""

import math

import dp_accounting
import pytest
from dp_accounting.rdp import rdp_privacy_accountant

from labeldp_core.accounting.dpsgd import dpsgd_epsilon
from labeldp_core.families.labeldp_pro.accounting import (
    accounted_budget,
    calibrate_label_noise,
    label_epsilon,
)
from tests.families.labeldp_pro.pld_reference import google_pld_epsilon

#: Fashion-MNIST's schedule (batch 1,024 of 60,000 for 5 epochs) and the sigma issue 51's table
#: gives for a replace-one epsilon of 0.1 / 0.5 / 1 at delta 1e-5.
FASHION_Q, FASHION_STEPS = 1024 / 60000, 295


def _google_rdp(sigma: float, q: float, steps: int, delta: float) -> float:
    accountant = rdp_privacy_accountant.RdpAccountant()
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(accountant.get_epsilon(delta))


@pytest.mark.parametrize(
    ("sigma", "q", "steps", "table"),
    [
        (18.03, FASHION_Q, FASHION_STEPS, 0.1),
        (2.195, FASHION_Q, FASHION_STEPS, 1.0),
        (3.9, 256 / 1437, 240, None),  # digits' schedule
    ],
)
def test_replace_one_epsilon_is_dp_accountings_pld(sigma, q, steps, table):
    epsilon, delta = label_epsilon(sigma, q, steps, 1e-5, "pld-replace-one")
    google = google_pld_epsilon(
        sigma, q, steps, 1e-5, dp_accounting.NeighboringRelation.REPLACE_ONE
    )
    # Ours discretises at 1e-3 from epsilon 0.5 on (pessimistically): at most 0.2% above.
    assert google <= epsilon <= google * 1.002 + 1e-9
    assert delta == 1e-5
    if table is not None:  # the table, read back
        assert epsilon == pytest.approx(table, abs=0.003)


@pytest.mark.parametrize(
    ("sigma", "q", "steps"), [(1.0, 0.01, 1000), (4.0, 0.18, 240), (2.6, FASHION_Q, FASHION_STEPS)]
)
def test_label_epsilon_is_twice_dp_sgd_rdp_by_dp_accounting(sigma, q, steps):
    delta = 1e-6
    epsilon, label_delta = label_epsilon(sigma, q, steps, delta, "rdp")
    assert epsilon == pytest.approx(2 * _google_rdp(sigma, q, steps, delta), rel=1e-3)
    assert label_delta == pytest.approx((1 + math.exp(epsilon / 2)) * delta)


@pytest.mark.parametrize("accountant", ["rdp", "prv"])
def test_accounting_equals_dp_sgd_for_the_same_noise_sampling_and_steps(accountant):
    epsilon, _ = label_epsilon(2.0, 0.05, 200, 1e-6, accountant)
    assert epsilon == 2 * dpsgd_epsilon(2.0, 0.05, 200, 1e-6, accountant)


@pytest.mark.parametrize("accountant", ["rdp", "pld-replace-one"])
@pytest.mark.parametrize("target", [0.1, 0.5, 1.0, 4.0])
def test_calibrated_noise_spends_at_most_the_label_budget(target, accountant):
    sigma = calibrate_label_noise(target, 1e-5, 256 / 1437, 240, accountant)
    _, accounted_delta = accounted_budget(target, 1e-5, accountant)
    epsilon, delta = label_epsilon(sigma, 256 / 1437, 240, accounted_delta, accountant)
    assert 0.98 * target <= epsilon <= target
    assert delta <= 1e-5


@pytest.mark.parametrize(("target", "group", "replace_one"), [(0.5, 4.67, 4.12), (2.0, 1.57, 1.22)])
def test_replace_one_needs_less_noise_than_group_privacy(target, group, replace_one):
    # Issue 51's table (Fashion-MNIST's schedule, delta 1e-5): the sigma each reading needs.
    by_group = calibrate_label_noise(target, 1e-5, FASHION_Q, FASHION_STEPS, "rdp")
    by_replace_one = calibrate_label_noise(
        target, 1e-5, FASHION_Q, FASHION_STEPS, "pld-replace-one"
    )
    assert by_group == pytest.approx(group, rel=0.02)
    assert by_replace_one == pytest.approx(replace_one, rel=0.02)
