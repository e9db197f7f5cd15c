"""The label-free prior of RR-with-prior: patch features read no label, the histogram spends ε_p."""

import inspect

import numpy as np
import pytest

from labeldp_core.__main__ import main
from labeldp_core.data import label_free_features, load_dataset
from labeldp_core.data.label_free_features import patch_features, patch_points
from labeldp_core.data.tables import example_table
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.rr_prior import experiment as rr_prior_experiment
from labeldp_core.noise.noise_plans import laplace_plan
from tests.families.rr_prior.contexts import digits_context

PATCHES = {"model": "logistic", "prior_features": "patches", "clusters": 10}


def _patch_clusters(config, directory, y_train=None) -> tuple[np.ndarray, np.ndarray]:
    """Patch features and cluster ids of ``config``'s prior, in a fresh cache.

    The training labels are replaced by ``y_train`` if given.
    """
    with digits_context(config, directory, y_train) as ctx:
        ids = rr_prior_experiment.image_clusters(ctx, 10, "patches")
        return rr_prior_experiment._patch_points(ctx), ids


def test_scrambling_every_label_leaves_the_features_and_clusters_identical(isolated_cache):
    config = make_config("rr-prior", "digits", 1.0, epochs=1, settings=PATCHES)
    y = load_dataset("digits").y_train
    features, ids = _patch_clusters(config, isolated_cache / "clean")
    scrambled = (y + 1 + np.arange(y.size) % 9) % 10  # every label changed
    assert np.all(scrambled != y)
    features_scrambled, ids_scrambled = _patch_clusters(
        config, isolated_cache / "scrambled", scrambled
    )
    assert np.array_equal(features, features_scrambled)
    assert np.array_equal(ids, ids_scrambled)
    # The clusters are not trivial: all 10 are used.
    assert np.unique(ids).size == 10


def test_no_function_of_the_features_takes_labels():
    # Label-free by construction: the module's entry points see the images and a seed only.
    for function in (patch_features, patch_points):
        assert set(inspect.signature(function).parameters) <= {"images", "seed", "components"}


def test_patch_features_cluster_images_by_their_texture():
    # Two kinds of 12x12 images a pixel k-means cannot tell apart by mean brightness: stripes
    # across or down, at a random phase. Patch features separate them; a wrong orientation
    # code (or codes averaged away) would put both kinds in one cluster half of the time.
    rng = np.random.default_rng(3)
    size, n = 12, 200
    phase = rng.integers(0, 4, n)
    grid = np.arange(size)
    across = ((grid[None, :, None] + phase[:, None, None]) // 2 % 2).repeat(size, axis=2)
    down = across.transpose(0, 2, 1)
    kind = rng.integers(0, 2, n)
    images = np.where(kind[:, None, None] == 1, down, across).astype(np.float32)[:, None]
    images += rng.normal(0, 0.1, images.shape).astype(np.float32)
    features = patch_features(images, seed=0)
    assert features.shape == (n, label_free_features.ATOMS * label_free_features.POOL_GRID**2)
    from sklearn.cluster import KMeans

    ids = KMeans(2, n_init=5, random_state=0).fit_predict(features)
    agreement = np.mean(ids == kind)
    assert max(agreement, 1 - agreement) == 1.0


def test_the_features_are_fixed_by_the_seed():
    images = load_dataset("digits").x_train[:300]
    first = patch_features(images, seed=1)
    assert np.array_equal(first, patch_features(images, seed=1))
    assert not np.array_equal(first, patch_features(images, seed=2))


@pytest.mark.parametrize(("epsilon", "settings"), [(1.0, {}), (0.1, {"prior_epsilon": 0.05})])
def test_the_histogram_spends_prior_epsilon_and_the_run_at_most_epsilon(
    cache, monkeypatch, epsilon, settings
):
    calls = []
    real = rr_prior_experiment.noisy_label_counts_by_plan

    def spy(ids, labels, *args, **kwargs):
        calls.append((args[2], len(labels)))
        return real(ids, labels, *args, **kwargs)

    monkeypatch.setattr(rr_prior_experiment, "noisy_label_counts_by_plan", spy)
    config = make_config("rr-prior", "digits", epsilon, epochs=1, settings=PATCHES | settings)
    result = run(config, cache)
    asked = settings.get("prior_epsilon", 0.2 * epsilon)
    # One histogram over every training label, with discrete Laplace noise for sensitivity 2
    # at the asked ε_p; the run reports what that noise spends.
    plan = laplace_plan(2, asked)
    assert calls == [(plan, load_dataset("digits").n_train)]
    assert plan.sensitivity == 2 and plan.epsilon_spent <= asked
    assert result.details["budget"]["prior_epsilon"] == plan.epsilon_spent
    assert result.details["histogram_sensitivity"] == 2
    assert "discrete" in result.details["histogram_noise"].lower()
    assert result.epsilon_spent <= epsilon
    assert result.epsilon_spent == pytest.approx(epsilon, rel=1e-12)
    assert "patch features" in result.details["prior"]
    assert "public_labels" not in result.details  # every label is covered


def test_an_unknown_prior_features_value_is_refused_with_the_choices():
    with pytest.raises(InvalidInputError, match=r"selfsup.*pixels, patches, encoder"):
        make_config("rr-prior", "digits", 1.0, settings={"prior_features": "selfsup"})


def test_patches_are_refused_on_a_table(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    argv = ["run", "rr-prior", "--epsilon", "1", "--epochs", "1", "--json"]
    argv += ["--dataset", f"file:{path}", "--label", "class", "--set", "prior_features=patches"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "prior_features=patches cuts patches out of images" in (
        captured.err
    )


@pytest.mark.parametrize("shape", [(10, 1, 4, 4), (10, 16), (0, 1, 8, 8)])
def test_images_too_small_for_a_patch_are_refused(shape):
    with pytest.raises(InvalidInputError, match="patch features need images"):
        patch_features(np.zeros(shape, np.float32), seed=0)


def test_patches_are_the_default_only_where_they_were_measured_to_win():
    def features(dataset):
        return make_config("rr-prior", dataset, 1.0).setting("prior_features")

    assert features("fashion-mnist") == "patches"
    assert features("digits") == features("mnist-5k") == "pixels"
    assert rr_prior_experiment.PATCH_PRIOR_DATASETS == ("fashion-mnist",)
