"""The sampled Gaussian's RDP recomputed faster: Opacus's numbers, bit for bit."""

import numpy as np
import pytest
from opacus.accountants.analysis import rdp as opacus_rdp

from labeldp_core.accounting import calibrate_noise_multiplier, dpsgd, sampled_gaussian
from labeldp_core.accounting.sampled_gaussian import RDP_ORDERS
from labeldp_core.accounting.sgm_rdp import compute_rdp

#: Sample rates of the project's runs (digits at batch 256, Fashion-MNIST at 256 and 1,024), a
#: large one, and noise multipliers from well below 1 (long series) to large.
RATES = (256 / 1437, 256 / 60000, 1024 / 60000, 0.6)
SIGMAS = (0.35, 0.9, 2.7, 30.0)


def _opacus(q: float, sigma: float, orders) -> np.ndarray:
    return np.asarray(opacus_rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=1, orders=orders))


@pytest.mark.parametrize("q", RATES)
def test_every_order_equals_opacus_to_the_last_bit(q):
    orders = [*RDP_ORDERS, 1.05, 2.5, 7.25, 100.5, 2.0**11]
    for sigma in SIGMAS:
        ours, theirs = compute_rdp(q, sigma, orders), _opacus(q, sigma, orders)
        assert np.array_equal(ours, theirs, equal_nan=True), sigma  # NaN where its series fails


@pytest.mark.parametrize(("q", "sigma"), [(1.0, 2.0), (0.0, 2.0), (0.3, 0.0)])
def test_the_edge_cases_equal_opacus(q, sigma):
    orders = [1.5, 2.0, 64.0, float("inf")]
    assert np.array_equal(compute_rdp(q, sigma, orders), _opacus(q, sigma, orders))


@pytest.fixture
def forgetful():
    """Each accountant answer computed afresh in the test, and none of its answers kept."""
    for remembered in (sampled_gaussian._rdp_per_step, dpsgd._calibrated):
        remembered.cache_clear()
    yield
    for remembered in (sampled_gaussian._rdp_per_step, dpsgd._calibrated):
        remembered.cache_clear()


def test_a_calibration_finds_the_noise_it_found_with_opacus(forgetful, monkeypatch):
    # LabelDP-Pro's schedule on digits for one epoch, at an epsilon of its grid (its add/remove
    # budget): every sigma the search tries gives the same epsilon, so it ends on the same sigma.
    question = (0.25, 1e-5 / (1 + np.exp(0.25)), 256 / 1437, 6)
    fast = calibrate_noise_multiplier(*question)
    monkeypatch.setattr(sampled_gaussian, "compute_rdp", _opacus)
    sampled_gaussian._rdp_per_step.cache_clear()
    dpsgd._calibrated.cache_clear()
    assert calibrate_noise_multiplier(*question) == fast
