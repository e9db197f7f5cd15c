"""LabelDP-Pro: DP-SGD's add/remove epsilon by dp_accounting, read for a label (twice it)."""

import pytest
from release_spies import only

from tests.families.dpsgd.release_contract import fake_dpsgd, rdp_epsilon


def _fake_labeldp_pro(data, num_classes, settings, pro, seed, progress, noise):
    return fake_dpsgd(*data, num_classes, settings, pro, seed, progress, noise)


def _labeldp_pro(calls, result) -> float:
    (call,) = only(calls, "train_labeldp_pro")
    sigma = call.arguments["pro"].noise_multiplier
    example = rdp_epsilon(sigma, call.returned, result.details["example_level_delta"])
    return pytest.approx(2 * example, rel=1e-4)


IMPLIED = {"labeldp-pro": _labeldp_pro}
FAKES = {"train_labeldp_pro": _fake_labeldp_pro}
