"""Laplace on labels, its regression, RR-on-bins and ALIBI: epsilons from the plans used."""

import numpy as np
from release_spies import K, N, after_priors, laplace_epsilon, only, rr_coins_epsilon

from labeldp_core.families.laplace_labels.release import ONE_HOT_SENSITIVITY
from labeldp_core.families.laplace_labels.rr_bins_release import bins_spent
from labeldp_core.mechanisms import alibi_posterior


def _laplace(calls, result) -> float:
    (call,) = only(calls, "laplace_one_hot_by_plan")
    assert call.arguments["labels"].size == N and call.arguments["num_classes"] == K
    return after_priors(calls, laplace_epsilon(call.arguments["plan"], ONE_HOT_SENSITIVITY))


def _laplace_regression(calls, result) -> float:
    (call,) = only(calls, "laplace_regression_by_plan")
    low, high, values = (call.arguments[k] for k in ("low", "high", "values"))
    assert values.size == N and (low, high) == (0, K - 1)  # the sensitivity is the label range
    assert values.min() >= low and values.max() <= high
    return laplace_epsilon(call.arguments["plan"], high - low)


def _rr_bins(calls, result) -> float:
    (call,) = only(calls, "rr_on_bins_by_plan")
    bins, plan = call.arguments["bins"], call.arguments["plan"]
    assert call.arguments["values"].size == N
    assert plan.max_set_size == bins.num_bins and plan.epsilon == bins.epsilon
    release = rr_coins_epsilon(plan) if bins.num_bins > 1 else 0.0
    assert release == bins_spent(plan)
    return after_priors(calls, release)


def _release_returned(calls, result, trained) -> list[tuple]:
    return list(zip(trained, [np.asarray(calls[-1].returned)], strict=True))


def _laplace_targets(calls, result, trained) -> list[tuple]:
    want = [np.asarray(calls[-1].returned).argmax(axis=1)]
    return list(zip(trained, want, strict=True))


def _alibi_targets(calls, result, trained) -> list[tuple]:
    plan = calls[-1].arguments["plan"]
    prior = np.asarray(result.details["prior"])
    noisy = np.asarray(calls[-1].returned)
    want = [alibi_posterior(noisy, plan.epsilon_spent, prior, scale=plan.scale)]
    return list(zip(trained, want, strict=True))


def _secure_ties(mechanism: str, settings: dict, mode: str) -> set[str]:
    """Laplace's argmax of integer vectors breaks ties with secure coins too."""
    return {"argmax tie-breaks"} if mode == "secure" and mechanism == "laplace" else set()


IMPLIED = {
    "laplace": _laplace,
    "laplace-regression": _laplace_regression,
    "rr-bins": _rr_bins,
    "alibi": _laplace,
}
VARIANTS = {
    "rr-bins": [{"prior": "histogram"}],
    "alibi": [{"prior": "histogram", "prior_share": 0.3}],
}
DRAW_VARIANTS = {
    "laplace": [{}, {"post": "soft"}, {"post": "round"}],
    "rr-bins": [{"prior": "histogram"}, {}],
    "alibi": [{"prior": "histogram"}, {}],
}
EXTRA_DRAWS = _secure_ties
TARGETS = {
    "laplace": _laplace_targets,
    "alibi": _alibi_targets,
    "laplace-regression": _release_returned,
    "rr-bins": _release_returned,
}
