"""Randomized response's release contract: the coins' epsilon, recomputed from the plan used."""

import numpy as np
from release_spies import K, N, only, rr_coins_epsilon


def _rr(calls, result) -> float:
    (call,) = only(calls, "randomized_response_by_plan")
    plan = call.arguments["plan"]
    assert call.arguments["labels"].size == N and plan.max_set_size == K
    assert plan.epsilon == result.epsilon
    return rr_coins_epsilon(plan)


def _trained_on_release(calls, result, trained) -> list[tuple]:
    (release,) = calls
    return list(zip(trained, [np.asarray(release.returned)], strict=True))


IMPLIED = {"rr": _rr}
TARGETS = {"rr": _trained_on_release}
