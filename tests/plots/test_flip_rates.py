"""Flip rates of the released labels: plain RR's closed form beside measured series."""

import numpy as np
from fake_results import fake_result

from labeldp_core import plots
from labeldp_core.engine.spec import RunResult
from labeldp_core.mechanisms import expected_flip_rate


def _result(mechanism: str, epsilon: float, flip_rate: float, expected: float) -> RunResult:
    details = {"expected_flip_rate": expected}
    return fake_result(
        mechanism=mechanism,
        epsilon=epsilon,
        epsilon_spent=epsilon,
        details=details,
        flip_rate=flip_rate,
        test_accuracy=0.5,
        baseline_test_accuracy=0.9,
    )


def test_flip_rate_comparison_draws_rr_closed_form_measured_and_expected_points():
    series = {
        "RR": [_result("rr", 1.0, 0.77, 0.768)],
        "RR with prior": [_result("rr-prior", 2.0, 0.2, 0.21), _result("rr-prior", 1.0, 0.3, 0.31)],
        "LP-2ST": [],
    }
    figure = plots.flip_rate_comparison(
        10, series, marked_epsilon=1.0, with_expected=("RR with prior", "LP-2ST")
    )
    closed, rr_measured, prior_measured, prior_expected = figure.data
    np.testing.assert_allclose(closed.y, [expected_flip_rate(e, 10) for e in closed.x])
    assert rr_measured.y == (0.77,)
    assert prior_measured.x == (1.0, 2.0) and prior_measured.y == (0.3, 0.2)
    assert prior_expected.y == (0.31, 0.21)
    assert figure.layout.xaxis.type == "log"
