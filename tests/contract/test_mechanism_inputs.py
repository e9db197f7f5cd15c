"""The bad-input table of ``labeldp_core.mechanisms``: valid calls beside their bad values.

The rows below are the shared noise's (``labeldp_core/noise/``: Laplace, label histograms,
discrete Laplace), which no family owns; each family's rows are in its tests folder,
``tests/families/<family>/bad_inputs.py`` (:func:`family_rows`), and the two make one table.

Accepted on purpose (not errors): NaN in the points where a density or CDF is evaluated gives NaN
there, as in NumPy.
"""

import numpy as np
import pytest

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    LABELS,
    NAN,
    RNG,
    Bad,
    Row,
    bad_calls,
    check_bad_call,
    check_valid_call,
    counts,
    epsilons,
    labels,
    num_classes,
    positives,
    probabilities,
    valid_calls,
)
from tests.families import family_modules

#: The shared noise's rows (the functions of ``labeldp_core/noise/`` that no family declares).
SHARED_ROWS: list[Row] = [
    Row(
        mechanisms.laplace_scale,
        {"sensitivity": 2.0, "epsilon": 1.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
    Row(
        mechanisms.laplace_epsilon,
        {"sensitivity": 2.0, "scale": 1.0},
        bad=[*positives("sensitivity"), *positives("scale")],
    ),
    Row(
        mechanisms.laplace_variance,
        {"scale": 1.0},
        bad=positives("scale"),
    ),
    Row(
        mechanisms.laplace_density,
        {"x": [0.5, -1.0], "scale": 1.0},
        bad=[*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    ),
    Row(
        mechanisms.laplace_cdf,
        {"x": [0.5, -1.0], "scale": 1.0},
        bad=[*positives("scale"), Bad("x", ["a"], "must hold real numbers", "str")],
    ),
    Row(
        mechanisms.tail_probability,
        {"threshold": 1.0, "scale": 1.0},
        bad=[
            *positives("scale"),
            Bad("threshold", -1.0, "t must be a finite number >= 0", "negative"),
            Bad("threshold", NAN, "t must be a finite number >= 0", "nan"),
            Bad("threshold", "1", "must hold real numbers", "str"),
        ],
    ),
    Row(
        mechanisms.epsilon_for_noise,
        {"magnitude": 1.0, "probability": 0.9, "sensitivity": 2.0},
        bad=[
            *positives("magnitude", "noise magnitude t"),
            *probabilities("probability", "probability p"),
            *positives("sensitivity"),
        ],
    ),
    Row(
        mechanisms.label_counts,
        {"groups": [0, 1, 0, 1], "labels": LABELS, "num_groups": 2, "num_classes": 3},
        bad=[
            *num_classes(),
            *labels(),
            Bad("groups", [0, 2, 0, 1], "integer group ids in 0..1", "out-of-range"),
            Bad("groups", [0.0, 1.0, 0.0, 1.0], "integer group ids in 0..1", "floats"),
            Bad("groups", [0, 1], "same length", "mismatched"),
            *counts("num_groups"),
        ],
    ),
    Row(
        mechanisms.noisy_label_counts,
        {
            "groups": [0, 1, 0, 1],
            "labels": LABELS,
            "num_groups": 2,
            "num_classes": 3,
            "epsilon": 1.0,
            "rng": RNG,
        },
        bad=[
            *epsilons(),
            *labels(),
            Bad("groups", [0, 1], "same length", "mismatched"),
        ],
    ),
    Row(
        mechanisms.prior_from_counts,
        {"counts": [[3, 1, 0], [0, -1, 0]]},
        bad=[
            Bad("counts", [3, 1, 0], "counts must be a (groups, K) array", "1-D"),
            Bad("counts", [[3], [1]], "counts must be a (groups, K) array", "K=1"),
            Bad("counts", np.zeros((0, 3)), "counts must be a (groups, K) array", "empty"),
            Bad("counts", [[3, NAN, 0]], "counts must be finite", "nan"),
            Bad("counts", [["3", "1", "0"]], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_noise,
        {"shape": (3,), "epsilon": 1.0, "sensitivity": 2.0, "rng": RNG},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("shape", -1, "shape must be", "negative"),
            Bad("shape", (2, -3), "shape must be", "negative-axis"),
            Bad("shape", 2.5, "shape must be", "fraction"),
            Bad("shape", "3", "shape must be", "str"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_parameter,
        {"epsilon": 1.0, "sensitivity": 2.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
    Row(
        mechanisms.discrete_laplace_pmf,
        {"values": [0, -2, 3], "epsilon": 1.0, "sensitivity": 2.0},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("values", [0.5], "whole numbers", "fraction"),
            Bad("values", [NAN], "whole numbers", "nan"),
            Bad("values", ["a"], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.discrete_laplace_variance,
        {"epsilon": 1.0, "sensitivity": 2.0},
        bad=[*epsilons(), *positives("sensitivity")],
    ),
]


def family_rows() -> list[Row]:
    """The rows each family's tests folder adds: ``tests/families/<family>/bad_inputs.py``'s
    ``ROWS`` (a new family's release API gets its rows there, beside its other tests)."""
    return [row for module in family_modules("bad_inputs").values() for row in module.ROWS]


#: The whole table: the shared rows, then each registered family's.
MECHANISM_ROWS = [*SHARED_ROWS, *family_rows()]


@pytest.mark.parametrize("row", valid_calls(MECHANISM_ROWS))
def test_valid_arguments_are_accepted(row):
    check_valid_call(row)


@pytest.mark.parametrize(("row", "bad"), bad_calls(MECHANISM_ROWS))
def test_bad_input_raises_a_clear_invalid_input_error(row, bad):
    check_bad_call(row, bad)
