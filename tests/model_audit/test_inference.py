import math
from dataclasses import replace

import pytest

from labeldp_core.experiments import make_config, run
from labeldp_core.model_audit.inference import (
    inference_curve,
    inference_gain,
    inference_point,
    inference_points,
)

QUICK = {"epochs": 5, "settings": {"model": "logistic"}}


@pytest.fixture
def rr_result(cache):
    return run(make_config("rr", "digits", 2.0, **QUICK), cache)


def test_the_gain_is_the_training_accuracy_over_the_clean_test_accuracy(rr_result):
    attack = rr_result.details["attack"]
    expected = attack["train_accuracy"] - rr_result.baseline_test_accuracy
    assert inference_gain(rr_result) == pytest.approx(expected)


def test_runs_without_a_model_on_every_private_example_have_no_gain(rr_result):
    without = replace(
        rr_result, details={k: v for k, v in rr_result.details.items() if k != "attack"}
    )
    assert inference_gain(without) is None
    assert inference_gain(replace(rr_result, privacy_unit="output")) is None


def test_randomized_response_gains_less_than_its_bound_over_seeds(cache):
    # The bound 1 - e^-eps is 0.39 at eps = 0.5 and 0.98 at eps = 4; RR at 0.5 trains on labels
    # 79% wrong, so its model does worse on its training labels than a clean one does on test.
    points = inference_curve("rr", "digits", [0.5, 4.0], [0, 1], cache=cache, **QUICK)
    assert [point.epsilon for point in points] == [0.5, 4.0]
    low, high = points
    assert low.bound == pytest.approx(1 - math.exp(-0.5))
    assert low.seeds == 2 and low.gain_low <= low.gain <= low.gain_high
    assert not low.exceeds and not high.exceeds
    assert low.gain < 0 < low.bound
    assert low.to_dict()["exceeds"] is False


def test_an_example_level_claim_is_bounded_for_a_label(rr_result):
    example = replace(rr_result, privacy_unit="example", epsilon=0.5, delta=1e-5)
    point = inference_point([example])
    assert point.label_epsilon == 1.0
    assert point.bound == pytest.approx(1 - math.exp(-1.0) + (1 + math.exp(0.5)) * 1e-5)


def test_a_model_that_learned_its_labels_beyond_the_bound_is_flagged(rr_result):
    leaky = replace(
        rr_result,
        epsilon=0.1,
        baseline_test_accuracy=0.5,
        details=rr_result.details | {"attack": {"train_accuracy": 1.0, "test_accuracy": 0.5}},
    )
    point = inference_point([leaky, leaky])
    assert point.gain == pytest.approx(0.5) and point.bound == pytest.approx(1 - math.exp(-0.1))
    assert point.exceeds


def test_stored_runs_of_several_mechanisms_give_one_point_per_mechanism_and_epsilon(rr_result):
    laplace = replace(rr_result, mechanism="laplace")
    no_model = replace(rr_result, mechanism="alibi", details={})
    points = inference_points([laplace, rr_result, replace(rr_result, seed=1), no_model])
    assert [(p.mechanism, p.epsilon, p.seeds) for p in points] == [
        ("laplace", 2.0, 1),
        ("rr", 2.0, 2),
    ]
