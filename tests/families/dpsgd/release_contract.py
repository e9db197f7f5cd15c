"""DP-SGD: its epsilon from dp_accounting's RDP accountant, for the noise the trainer received."""

import dp_accounting
import pytest
from dp_accounting import rdp
from release_spies import only

from labeldp_core.training import dpsgd as dpsgd_training


def fake_dpsgd(
    x_train, y_train, x_test, y_test, num_classes, settings, privacy, seed, progress, noise
):
    """A stand-in for the trainer: the schedule it would run, an untrained model, no noise."""
    from labeldp_core.accounting.dpsgd import sampling_schedule
    from labeldp_core.models import build_model

    rate, steps = sampling_schedule(x_train.shape[0], settings.batch_size, settings.epochs)
    model = build_model(settings.model, tuple(x_train.shape[1:]), num_classes).eval()
    return dpsgd_training.DPSGDOutcome(model, (0.5,), rate, steps, rate * x_train.shape[0], 0)


def rdp_epsilon(sigma: float, outcome, delta: float) -> float:
    """The Poisson-subsampled Gaussian's epsilon by dp_accounting, independent of our adapter."""
    accountant = rdp.RdpAccountant()
    step = dp_accounting.PoissonSampledDpEvent(
        outcome.sample_rate, dp_accounting.GaussianDpEvent(sigma)
    )
    accountant.compose(step, outcome.steps)
    return accountant.get_epsilon(delta)


def _dpsgd(calls, result) -> float:
    (call,) = only(calls, "train_dpsgd_classifier")
    outcome = call.returned
    n = call.arguments["x_train"].shape[0]
    assert outcome.sample_rate == call.arguments["settings"].batch_size / n
    sigma = call.arguments["privacy"].noise_multiplier
    return pytest.approx(rdp_epsilon(sigma, outcome, result.delta), rel=1e-4)


IMPLIED = {"dpsgd": _dpsgd}
FAKES = {"train_dpsgd_classifier": fake_dpsgd}
