"""noise=secure where the samplers are floating point: DP-SGD, the DP prototypes, softmax-laplace.

Float runs draw from generators seeded by the seed that every result and link prints, so the seed
replays their noise; their results say so. Secure runs seed every generator that touches the
private data from os.urandom: a float release replays from its seed and a secure one does not,
and the run's seeded generator is never asked for. The samplers stay floating point in both
modes, and the results say that too. Runs use ``fast_runs`` (no model training except DP-SGD's,
on digits for one epoch).
"""

import numpy as np
import pytest
import torch
from release_spies import Call, spy

from labeldp_core.cache import ResultCache
from labeldp_core.engine import context as context_module
from labeldp_core.experiments import make_config, run
from labeldp_core.families.noisy_outputs import experiment as softmax_experiment
from labeldp_core.families.prototypes import experiment as dppl_experiment
from labeldp_core.families.prototypes.exponential import (
    exponential_probabilities,
    topk_worst_position_probabilities,
)
from labeldp_core.families.prototypes.release import SCORE_SENSITIVITY
from labeldp_core.training import dpsgd as dpsgd_training

pytestmark = [
    pytest.mark.filterwarnings("ignore:Full backward hook is firing"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]

FLOATING = ("dpsgd", "dppl-mean", "dppl-public", "dppl-topk", "softmax-laplace")
ENCODERS = ("dppl-mean", "dppl-public", "dppl-topk")
#: The steps of each run whose draws touch the private data, as ``random_draws`` names them.
RELEASED = {
    "dpsgd": ["Poisson batch sampling", "gradient noise"],
    "dppl-mean": ["CoinPress noise"],
    "dppl-public": ["exponential-mechanism picks"],
    "dppl-topk": ["exponential-mechanism picks"],
    "softmax-laplace": ["output noise"],
}


def _weights(outcome) -> np.ndarray:
    return torch.cat([p.detach().flatten() for p in outcome.model.parameters()]).numpy()


#: Each mechanism's release function, and the release in what it returns.
RELEASES = {
    "dpsgd": (dpsgd_training, "train_dpsgd_classifier", _weights),
    "dppl-mean": (dppl_experiment, "private_class_means", lambda release: release.prototypes),
    "dppl-public": (dppl_experiment, "public_prototype_indices", np.asarray),
    "dppl-topk": (dppl_experiment, "public_prototype_indices", np.asarray),
    "softmax-laplace": (softmax_experiment, "laplace_outputs_by_plan", np.asarray),
}
#: Small budgets for the picks, so that two independent picks rarely agree (bounded below).
EPSILONS = {"dppl-public": 0.05, "dppl-topk": 0.05}


def _config(mechanism: str, noise: str, seed: int, epsilon: float = 1.0, **extra):
    settings = {"model": "mlp" if mechanism in ENCODERS else "logistic", "noise": noise} | extra
    return make_config(mechanism, "digits", epsilon, seed=seed, epochs=1, settings=settings)


@pytest.mark.parametrize("mechanism", FLOATING)
def test_float_results_name_their_draws_and_say_the_seed_replays_them(fast_runs, mechanism):
    details = run(_config(mechanism, "float", seed=21), fast_runs).details
    assert details["noise_mode"] == "float"
    assert "seeded by the run's seed" in details["noise_source"]
    meaning = details["noise_mode_meaning"]
    assert "replay" in meaning and "a teaching run, not a release" in meaning
    draws = details["random_draws"]
    released = [step for step, source in draws.items() if source == details["noise_source"]]
    assert released == RELEASED[mechanism]
    seeded = set(draws) - set(released)  # the rest say why they may stay seeded
    assert seeded and all(len(draws[step]) > 40 for step in seeded)


@pytest.mark.parametrize("mechanism", FLOATING)
def test_secure_results_say_the_draws_are_unpredictable_and_still_floating_point(
    fast_runs, mechanism
):
    secure = run(_config(mechanism, "secure", seed=22), fast_runs)
    details = secure.details
    assert details["noise_mode"] == "secure"
    assert details["noise_source"].startswith("os.urandom")
    assert "floating point" in details["noise_mode_meaning"]
    assert "nothing to replay from the seed" in details["noise_mode_meaning"]
    draws = details["random_draws"]
    assert [s for s, source in draws.items() if source == details["noise_source"]] == RELEASED[
        mechanism
    ]
    # Where the bits come from does not change the accounting.
    floating = run(_config(mechanism, "float", seed=22), fast_runs)
    assert secure.epsilon_spent == floating.epsilon_spent <= 1.0


def _same_pick_bound(call: Call) -> float:
    """An upper bound of the chance that a pick equals any given pick: prod over classes of the
    largest probability of one candidate (k = 1) or of one worst position (a k-set's worst member
    is a function of the set)."""
    utilities, epsilon, k = (call.arguments[name] for name in ("utilities", "epsilon", "k"))
    if k == 1:
        probabilities = exponential_probabilities(
            utilities, epsilon, SCORE_SENSITIVITY, monotone=True
        )
    else:
        ordered = -np.sort(-utilities, axis=1)
        probabilities = topk_worst_position_probabilities(
            ordered, k, epsilon, SCORE_SENSITIVITY, monotone=True
        )
    return float(np.prod(probabilities.max(axis=1)))


@pytest.mark.parametrize("mechanism", FLOATING)
def test_the_seed_replays_a_float_release_and_not_a_secure_one(
    tmp_path, fast_runs, monkeypatch, mechanism
):
    module, name, release = RELEASES[mechanism]
    calls: list[Call] = []
    spy(monkeypatch, module, name, calls)
    epsilon = EPSILONS.get(mechanism, 1.0)
    for index, mode in enumerate(("float", "float", "secure", "secure")):
        cache = ResultCache(tmp_path / str(index))  # a fresh cache: each run draws anew
        run(_config(mechanism, mode, seed=5, epsilon=epsilon), cache)
        cache.close()
    assert len(calls) == 4
    replayed, again, secure, other = (release(call.returned) for call in calls)
    assert np.array_equal(replayed, again)  # the seed replays the float release exactly
    if mechanism in EPSILONS:  # picks from a finite set: the chance they agree is bounded
        assert _same_pick_bound(calls[2]) < 1e-9
    assert not np.array_equal(secure, other)
    assert not np.array_equal(secure, replayed)


@pytest.mark.parametrize("mechanism", ["dppl-mean", "dppl-public", "dppl-topk", "softmax-laplace"])
def test_secure_runs_never_ask_for_the_seeded_generator(fast_runs, monkeypatch, mechanism):
    def refuse(ctx):
        raise AssertionError("the run's seeded generator was asked for")

    monkeypatch.setattr(context_module.RunContext, "rng", property(refuse))
    assert run(_config(mechanism, "secure", seed=6), fast_runs).details["noise_mode"] == "secure"
    with pytest.raises(AssertionError, match="seeded generator was asked for"):
        run(_config(mechanism, "float", seed=6), fast_runs)  # the spy works: float asks


def test_dpsgd_says_what_its_epsilon_covers(fast_runs):
    balanced = run(_config("dpsgd", "float", seed=8, batch=64), fast_runs).details
    imbalanced = run(_config("dpsgd", "float", seed=8, batch=64, imbalance=10.0), fast_runs)
    assert balanced["guarantee_scope"] == "the whole training split"
    scope = imbalanced.details["guarantee_scope"]
    assert "chosen from the true labels" in scope
    assert "not of the whole training split" in scope
    # The subsample is drawn by the seed in every mode; the draws say why that is no release.
    assert "imbalanced subsample" not in balanced["random_draws"]
    assert "guarantee_scope" in imbalanced.details["random_draws"]["imbalanced subsample"]
