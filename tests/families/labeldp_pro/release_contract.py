"""LabelDP-Pro: DP-SGD's add/remove epsilon by dp_accounting, read for a label (twice it)."""

import dataclasses

import pytest
from release_spies import only

from labeldp_core.families.labeldp_pro import trainer
from tests.families.dpsgd.release_contract import fake_dpsgd, rdp_epsilon


def as_pro_outcome(outcome, pro, settings) -> trainer.ProOutcome:
    """A DP-SGD stand-in's outcome as LabelDP-Pro's, with the lambda and rate its rules give."""
    fields = {field.name: getattr(outcome, field.name) for field in dataclasses.fields(outcome)}
    dimension = sum(p.numel() for p in outcome.model.parameters())
    smoothing = trainer.resolved_smoothing(pro, dimension, settings.batch_size)
    rate = trainer.step_rate(pro, settings.learning_rate, smoothing)
    return trainer.ProOutcome(**fields, smoothing=smoothing, learning_rate=rate)


def _fake_labeldp_pro(data, num_classes, settings, pro, seed, progress, noise):
    outcome = fake_dpsgd(*data, num_classes, settings, pro, seed, progress, noise)
    return as_pro_outcome(outcome, pro, settings)


def _labeldp_pro(calls, result) -> float:
    (call,) = only(calls, "train_labeldp_pro")
    sigma = call.arguments["pro"].noise_multiplier
    example = rdp_epsilon(sigma, call.returned, result.details["example_level_delta"])
    return pytest.approx(2 * example, rel=1e-4)


IMPLIED = {"labeldp-pro": _labeldp_pro}
FAKES = {"train_labeldp_pro": _fake_labeldp_pro}
