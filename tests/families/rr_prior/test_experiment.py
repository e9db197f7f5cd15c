import dataclasses
import json
import math
import sys

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.cache import ResultCache
from labeldp_core.data import load_dataset
from labeldp_core.engine.public_encoder import public_embeddings
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.rr_prior import experiment as rr_prior_experiment
from labeldp_core.families.rr_prior import lp_2st
from labeldp_core.mechanisms import expected_flip_rate
from labeldp_core.noise.noise_plans import laplace_plan, rr_plan
from tests.families.rr_prior.contexts import digits_context

CHANCE = 0.1
FAST = {"model": "logistic"}


# Positions of (labels, noise plan) in each spied function's arguments.
ARGUMENTS = {
    "noisy_label_counts_by_plan": (1, 4),
    "rr_with_prior_by_plan": (0, 2),
    "randomized_response_by_plan": (0, 1),
}


def _spy(monkeypatch, module, name, calls, kind):
    """Record (kind, plan, number of labels) whenever ``module.name`` is called."""
    real = getattr(module, name)
    labels_at, plan_at = ARGUMENTS[name]

    def spy(*args, **kwargs):
        calls.append((kind, args[plan_at], len(args[labels_at])))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)


@pytest.mark.parametrize(
    ("epsilon", "settings"),
    [(1.5, {"prior_epsilon": 0.4}), (0.3, {"prior_share": 0.3}), (2.0, {"prior": "uniform"})],
)
def test_budget_reported_equals_budget_spent(cache, monkeypatch, epsilon, settings):
    calls = []
    _spy(monkeypatch, rr_prior_experiment, "noisy_label_counts_by_plan", calls, "prior")
    _spy(monkeypatch, rr_prior_experiment, "rr_with_prior_by_plan", calls, "rr")
    config = make_config("rr-prior", "digits", epsilon, epochs=1, settings=FAST | settings)
    result = run(config, cache)
    n = load_dataset("digits").n_train
    uniform = settings.get("prior") == "uniform"
    # Both steps read every training label, so their budgets compose sequentially.
    assert [(kind, size) for kind, _, size in calls] == [("prior", n)] * (not uniform) + [("rr", n)]
    received = [plan for _, plan, _ in calls]
    # Each step spends what the noise plan it drew with guarantees.
    asked = settings.get("prior_epsilon") or settings.get("prior_share", 0) * epsilon
    assert uniform or received[0] == laplace_plan(2, asked)
    prior_spent = 0.0 if uniform else received[0].epsilon_spent
    rr_spent = received[-1].epsilon_spent
    assert received[-1] == rr_plan(received[-1].epsilon, 10)
    assert result.epsilon_spent == prior_spent + rr_spent
    assert result.epsilon_spent <= epsilon
    assert result.epsilon_spent == pytest.approx(epsilon, rel=1e-12)
    budget = result.details["budget"]
    assert budget["rr_epsilon"] == rr_spent
    assert budget["prior_epsilon"] == prior_spent
    assert budget["spent"] == result.epsilon_spent
    assert ("one release" if uniform else "sequential") in result.details["composition"]
    assert result.privacy_unit == "label" and result.delta == 0.0


def test_an_impossible_split_fails_before_any_training(cache):
    with pytest.raises(InvalidInputError, match="leaves no budget"):
        make_config("rr-prior", "digits", 1.0, settings={"prior_epsilon": 1.0})
    assert len(cache) == 0


def test_uniform_prior_run_is_plain_rr(cache):
    config = make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST | {"prior": "uniform"})
    result = run(config, cache)
    n = result.n_train
    assert result.details["set_size_counts"] == [0] * 9 + [n]
    expected = expected_flip_rate(1.0, 10)
    assert result.details["expected_flip_rate"] == pytest.approx(expected, rel=1e-12)
    assert abs(result.flip_rate - expected) < 5 * math.sqrt(expected * (1 - expected) / n)


def _stored_set_sizes(result, cache) -> tuple[np.ndarray, np.ndarray]:
    """k* per example and their training indices, checked against the run's histogram."""
    key = result.details["set_sizes_artifact"]
    assert isinstance(key, str)  # the details name the artefact; the arrays stay out of the JSON
    arrays = rr_prior_experiment.load_set_sizes(result, cache)
    sizes, examples = arrays["set_sizes"], arrays["examples"]
    assert sizes.shape == examples.shape
    counts = np.bincount(sizes, minlength=result.num_classes + 1)
    assert counts[0] == 0 and counts[1:].tolist() == result.details["set_size_counts"]
    assert sizes.mean() == pytest.approx(result.details["mean_set_size"], rel=1e-12)
    return sizes, examples


def test_rr_prior_stores_k_star_of_every_training_example(cache):
    config = make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST | {"clusters": 10})
    result = run(config, cache)
    sizes, examples = _stored_set_sizes(result, cache)
    np.testing.assert_array_equal(examples, np.arange(result.n_train))
    # The prior is per cluster, so k* is too: one set size per cluster of the images.
    ids = rr_prior_experiment.cluster_images(load_dataset("digits").x_train, 10, 0)
    assert all(np.unique(sizes[ids == c]).size == 1 for c in np.unique(ids))
    assert len(set(sizes.tolist())) > 1  # the clusters differ, so the check above can fail
    again = run(config, cache)
    assert again.cached
    np.testing.assert_array_equal(_stored_set_sizes(again, cache)[0], sizes)


def test_each_run_keeps_its_own_k_star_in_the_cache_it_ran_in(tmp_path):
    # Two budgets give different set sizes; each run must read back its own, from the cache
    # it was computed in (not from the default cache folder).
    elsewhere = ResultCache(tmp_path / "elsewhere")
    low, high = (
        run(make_config("rr-prior", "digits", e, epochs=1, settings=FAST), elsewhere)
        for e in (0.3, 6.0)
    )
    small, large = (_stored_set_sizes(r, elsewhere)[0] for r in (low, high))
    assert small.mean() != large.mean()
    assert rr_prior_experiment.load_set_sizes(low, ResultCache(tmp_path / "empty")) is None


def test_k_star_is_read_from_the_default_cache_when_none_is_given(cache):
    result = run(make_config("rr-prior", "digits", 0.8, epochs=1, settings=FAST), cache)
    np.testing.assert_array_equal(  # the fixture's cache is the default folder of this test
        rr_prior_experiment.load_set_sizes(result)["set_sizes"],
        rr_prior_experiment.load_set_sizes(result, cache)["set_sizes"],
    )


def test_loading_k_star_of_a_run_without_it_names_the_problem(cache):
    result = run(make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST), cache)
    with pytest.raises(InvalidInputError, match="no per-example k"):
        rr_prior_experiment.load_set_sizes(dataclasses.replace(result, details={}), cache)


def test_clusters_are_computed_once_per_dataset_seed_and_count(cache, monkeypatch):
    calls = []
    real = rr_prior_experiment.cluster_images

    def counting(images, clusters, seed):
        calls.append((clusters, seed))
        return real(images, clusters, seed)

    monkeypatch.setattr(rr_prior_experiment, "cluster_images", counting)
    for epsilon, clusters in ((1.0, 10), (2.0, 10), (1.0, 5)):
        settings = FAST | {"clusters": clusters}
        run(make_config("rr-prior", "digits", epsilon, epochs=1, settings=settings), cache)
    assert calls == [(10, 0), (5, 0)]


def test_lp_2st_releases_each_half_once_and_spends_epsilon(cache, monkeypatch):
    calls = []
    _spy(monkeypatch, lp_2st, "randomized_response_by_plan", calls, "rr")
    _spy(monkeypatch, lp_2st, "rr_with_prior_by_plan", calls, "rr-prior")
    result = run(make_config("lp-2st", "digits", 2.0, epochs=1, settings=FAST), cache)
    assert [kind for kind, _, _ in calls] == ["rr", "rr-prior"]
    assert sum(size for _, _, size in calls) == result.n_train
    assert [plan for _, plan, _ in calls] == [rr_plan(2.0, 10)] * 2
    assert result.epsilon_spent == rr_plan(2.0, 10).epsilon_spent <= 2.0
    details = result.details
    assert "parallel" in details["composition"] and "epsilon-label-DP" in details["composition"]
    assert details["stage1_examples"] + details["stage2_examples"] == result.n_train
    assert sum(details["set_size_counts"]) == details["stage2_examples"]
    json.dumps(result.to_dict(), allow_nan=False)
    # k* exists for the second half only (the first is plain RR): one per stage-2 example.
    sizes, examples = _stored_set_sizes(result, cache)
    assert sizes.shape == (details["stage2_examples"],)
    np.testing.assert_array_equal(examples, lp_2st.split_halves(result.n_train, 0)[1])


def test_lp_2st_halves_are_disjoint_label_free_and_seeded():
    first, second = lp_2st.split_halves(1437, 3)
    assert len(first) == 718 and len(second) == 719
    np.testing.assert_array_equal(np.sort(np.concatenate([first, second])), np.arange(1437))
    again = lp_2st.split_halves(1437, 3)
    np.testing.assert_array_equal(first, again[0])
    assert not np.array_equal(first, lp_2st.split_halves(1437, 4)[0])


@pytest.mark.parametrize("mechanism", ["rr-prior", "lp-2st"])
def test_models_learn_from_the_released_labels(cache, mechanism):
    result = run(make_config(mechanism, "digits", 4.0, epochs=5, settings={"model": "mlp"}), cache)
    assert result.test_accuracy > 3 * CHANCE
    assert result.label_accuracy > 3 * CHANCE


def test_cli_runs_rr_prior_with_settings(capsys):
    code = main(
        [
            "run",
            "rr-prior",
            "--dataset",
            "digits",
            "--epsilon",
            "2",
            "--epochs",
            "1",
            "--set",
            "prior_epsilon=0.5",
            "--set",
            "clusters=10",
            "--set",
            "model=logistic",
            "--json",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    rr_spent = rr_plan(1.5, 10).epsilon_spent
    assert result["mechanism"] == "rr-prior" and result["epsilon_spent"] == 0.5 + rr_spent <= 2
    assert result["details"]["budget"] == {
        "total": 2.0,
        "prior_epsilon": 0.5,
        "rr_epsilon": rr_spent,
        "spent": 0.5 + rr_spent,
    }
    assert result["details"]["clusters"] == 10


def test_cli_refuses_a_split_that_leaves_nothing_for_rr(capsys):
    with pytest.raises(SystemExit) as stopped:
        sys.exit(
            main(
                [
                    "run",
                    "rr-prior",
                    "--dataset",
                    "digits",
                    "--epsilon",
                    "1",
                    "--set",
                    "prior_epsilon=2",
                ]
            )
        )
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "leaves no budget" in err[0]


def test_cli_lists_both_mechanisms(capsys):
    assert main(["list", "--json"]) == 0
    ids = {m["id"] for m in json.loads(capsys.readouterr().out)["mechanisms"]}
    assert {"rr-prior", "lp-2st"} <= ids


ENCODER = {"model": "mlp", "prior_features": "encoder", "clusters": 10}


def _encoder_clusters(config, directory, y_train=None) -> tuple[np.ndarray, np.ndarray]:
    """Cluster ids of ``config``'s encoder prior and the encoder's public part, in a fresh cache.

    The training labels are replaced by ``y_train`` if given.
    """
    with digits_context(config, directory, y_train) as ctx:
        ids = rr_prior_experiment.image_clusters(ctx, 10, "encoder")
        fraction = rr_prior_experiment.ENCODER_PUBLIC_FRACTION
        return ids, public_embeddings(ctx, fraction).public_index


def test_the_encoder_prior_reads_no_private_label(isolated_cache):
    # Scrambling every label outside the encoder's public part leaves the clusters identical;
    # scrambling the public part's labels changes them, so the test can see a label it reads.
    config = make_config("rr-prior", "digits", 1.0, epochs=2, settings=ENCODER)
    y = load_dataset("digits").y_train
    clean, index = _encoder_clusters(config, isolated_cache / "clean")
    public = np.zeros(y.size, bool)
    public[index] = True
    for scrambled_part, same in ((~public, True), (public, False)):
        y_scrambled = y.copy()
        shift = 1 + np.arange(scrambled_part.sum()) % 9
        y_scrambled[scrambled_part] = (y[scrambled_part] + shift) % 10
        ids, _ = _encoder_clusters(config, isolated_cache / f"scrambled-{same}", y_scrambled)
        assert np.array_equal(ids, clean) is same


def test_the_encoder_prior_run_says_whose_labels_it_covers(cache):
    result = run(make_config("rr-prior", "digits", 1.0, epochs=1, settings=ENCODER), cache)
    details = result.details
    n_public = details["encoder_public_examples"]
    assert n_public == round(
        load_dataset("digits").n_train * rr_prior_experiment.ENCODER_PUBLIC_FRACTION
    )
    assert f"covers the other {result.n_train - n_public:,} labels only" in details["public_labels"]
    assert "encoder" in details["prior"] and 0 <= details["encoder_test_accuracy"] <= 1
    pixels = run(make_config("rr-prior", "digits", 1.0, epochs=1, settings=FAST), cache)
    assert "public_labels" not in pixels.details and "pixels" in pixels.details["prior"]


def test_the_encoder_prior_refuses_a_model_without_a_hidden_layer():
    with pytest.raises(
        InvalidInputError, match="prior_features=encoder needs a model with a hidden"
    ):
        make_config("rr-prior", "digits", 1.0, settings=ENCODER | {"model": "logistic"})


def test_a_second_epsilon_reads_neither_the_encoder_nor_its_embeddings(cache, monkeypatch):
    # The encoder's facts are stored with the cached clusters: another epsilon on the same
    # clusters reports them without loading the embeddings again.
    calls = []
    real = rr_prior_experiment.public_embeddings

    def counting(*args, **kwargs):
        calls.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(rr_prior_experiment, "public_embeddings", counting)
    first, second = (
        run(make_config("rr-prior", "digits", e, epochs=1, settings=ENCODER), cache)
        for e in (1.0, 2.0)
    )
    assert len(calls) == 1
    assert second.details["public_labels"] == first.details["public_labels"]
    assert second.details["encoder_test_accuracy"] == first.details["encoder_test_accuracy"]


@pytest.mark.parametrize(
    ("epsilon", "settings", "prior_epsilon"),
    [
        (0.1, {}, 0.05),  # the share's 0.02 is raised to the floor
        (0.06, {}, 0.03),  # at most half of epsilon
        (1.0, {}, 0.2),  # the share is above the floor
        (0.1, {"prior_epsilon": 0.01}, 0.01),  # an absolute prior_epsilon is kept as asked
        (0.1, {"prior": "uniform"}, 0.0),
    ],
)
def test_the_histograms_get_at_least_the_floor_of_a_small_epsilon(epsilon, settings, prior_epsilon):
    split = rr_prior_experiment.budget_split(
        make_config("rr-prior", "digits", epsilon, settings=settings)
    )
    assert split.prior_epsilon == pytest.approx(prior_epsilon)
    assert split.prior_epsilon + split.release_epsilon <= epsilon


@pytest.mark.parametrize(
    ("mechanism", "dataset", "epsilon", "settings", "prior_epsilon"),
    [
        ("rr-prior", "fashion-mnist", 2.0, {}, 0.1),  # the share's 0.4, capped by the recipe
        ("rr-prior", "fashion-mnist", 0.5, {}, 0.1),  # the share's 0.1, at the cap
        ("rr-prior", "fashion-mnist", 0.1, {}, 0.05),  # the floor, below the cap
        ("lp-2st", "fashion-mnist", 1.0, {}, 0.2),  # stage 1 uncapped: it measured higher
        ("lp-2st", "fashion-mnist", 1.0, {"prior_epsilon_cap": 0.1}, 0.1),
        ("rr-prior", "digits", 2.0, {}, 0.4),  # no cap where none was measured
        ("rr-prior", "digits", 2.0, {"prior_epsilon_cap": 0.3}, 0.3),
        ("rr-prior", "digits", 0.1, {"prior_epsilon_cap": 0.01}, 0.05),  # never below the floor
        ("rr-prior", "fashion-mnist", 2.0, {"prior_epsilon": 0.5}, 0.5),  # an absolute one wins
    ],
)
def test_the_cap_bounds_the_histograms_share_of_a_large_epsilon(
    mechanism, dataset, epsilon, settings, prior_epsilon
):
    config = make_config(mechanism, dataset, epsilon, settings=settings)
    split = rr_prior_experiment.budget_split(config)
    assert split.prior_epsilon == pytest.approx(prior_epsilon)
    assert split.prior_epsilon + split.release_epsilon <= epsilon
