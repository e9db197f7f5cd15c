"""Vector randomized response's release contract: two bits' coins, recomputed from the plan used.

The model trains through the family's own loop (sigmoid outputs), not ``RunContext.train``, so
what it trained on is checked in ``test_experiment.py`` rather than by a ``TARGETS`` entry.
"""

import math

import pytest
from release_spies import only

K = 10  # digits
N = 1437  # digits' training labels


def _vector_rr(calls, result) -> float:
    (call,) = only(calls, "vector_randomized_response_by_plan")
    plan = call.arguments["plan"]  # binary coins; replace-one changes two bits of the vector
    assert call.arguments["labels"].size == N and call.arguments["num_classes"] == K
    assert plan.max_set_size == 2 and plan.mode == result.settings["noise"]
    ratio = math.log(plan.denominator) - math.log(plan.flip_weight)
    assert plan.epsilon_spent == pytest.approx(ratio, abs=1e-12)
    assert plan.epsilon_spent <= result.epsilon / 2
    return 2 * plan.epsilon_spent


IMPLIED = {"vector-rr": _vector_rr}
