"""Laplace on model outputs: the output noise's epsilon, from the plan used."""

import numpy as np
from release_spies import laplace_epsilon, only

from labeldp_core.mechanisms import PROBABILITY_SENSITIVITY


def _softmax(calls, result) -> float:
    (call,) = only(calls, "laplace_outputs_by_plan")
    assert np.allclose(call.arguments["probabilities"].sum(axis=1), 1.0)
    return laplace_epsilon(call.arguments["plan"], PROBABILITY_SENSITIVITY)


IMPLIED = {"softmax-laplace": _softmax}
