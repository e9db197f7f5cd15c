"""LabelDP-Pro: dp_accounting's replace-one PLD epsilon, or its add/remove RDP one read twice."""

import dataclasses

import dp_accounting
import pytest
from release_spies import only

from labeldp_core.families.labeldp_pro import trainer
from tests.families.dpsgd.release_contract import fake_dpsgd, rdp_epsilon
from tests.families.labeldp_pro.pld_reference import google_pld_epsilon


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


def replace_one_epsilon(sigma: float, outcome, delta: float) -> float:
    """The replace-one epsilon by dp_accounting's PLD accountant, independent of our adapter."""
    replace_one = dp_accounting.NeighboringRelation.REPLACE_ONE
    return google_pld_epsilon(sigma, outcome.sample_rate, outcome.steps, delta, replace_one)


def _labeldp_pro(calls, result) -> float:
    (call,) = only(calls, "train_labeldp_pro")
    sigma = call.arguments["pro"].noise_multiplier
    if result.details["accountant"] == "pld-replace-one":
        # Ours discretises at 1e-3 from epsilon 0.5 on, pessimistically: at most 0.2% above.
        return pytest.approx(replace_one_epsilon(sigma, call.returned, result.delta), rel=2e-3)
    example = rdp_epsilon(sigma, call.returned, result.details["example_level_delta"])
    return pytest.approx(2 * example, rel=1e-4)


IMPLIED = {"labeldp-pro": _labeldp_pro}
FAKES = {"train_labeldp_pro": _fake_labeldp_pro}
