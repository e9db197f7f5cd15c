"""DP prototypes: zCDP of the class means, pure ε of the public prototypes' choice."""

from release_spies import only

from labeldp_core.accounting.zcdp import zcdp_to_approx_dp


def _dppl_mean(calls, result) -> float:
    (call,) = only(calls, "private_class_means")
    rho = call.returned.rho
    assert rho <= call.arguments["rho"]  # the parts never sum above what was handed down
    return zcdp_to_approx_dp(rho, result.delta)


def _dppl_public(calls, result) -> float:
    for utilities in only(calls, "class_utilities"):  # cached across epsilons once computed
        low, high = utilities.arguments["min_score"], utilities.arguments["max_score"]
        assert 0 <= low < high <= 2  # scores in [0, 1]: sensitivity 1
    (call,) = only(calls, "public_prototype_indices")
    return call.arguments["epsilon"]  # pure, parallel over classes


IMPLIED = {"dppl-mean": _dppl_mean, "dppl-public": _dppl_public, "dppl-topk": _dppl_public}
VARIANTS = {"dppl-mean": [{"steps": 1}, {"steps": 3}]}
#: Their encoder needs a trainable network.
SMALL = {mechanism: {"model": "mlp"} for mechanism in IMPLIED}
