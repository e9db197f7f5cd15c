"""LabelDP-Pro on label-free patch features: what the model reads, what the release takes in."""

import dataclasses

import numpy as np
import pytest
import torch

from labeldp_core.engine.spec import RunConfig
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments.runner import make_config
from labeldp_core.families.labeldp_pro.experiment import validate_labeldp_pro
from labeldp_core.families.labeldp_pro.features import FeatureClassifier, patch_inputs
from labeldp_core.models.zoo import build_model
from tests.families.rr_prior.contexts import digits_context

DIMS = 16


def _config(**settings: object) -> RunConfig:
    """A LabelDP-Pro point on digits reading the patch features."""
    chosen = {"features": "patches", "feature_dims": DIMS} | settings
    return make_config("labeldp-pro", "digits", 1.0, settings=chosen)


def test_the_features_read_no_label_and_are_whitened(tmp_path):
    with digits_context(_config(), tmp_path / "a") as ctx:
        inputs = patch_inputs(ctx, DIMS)
        labels = ctx.dataset.y_train
    shuffled = np.random.default_rng(0).permutation(labels)
    with digits_context(_config(), tmp_path / "b", y_train=shuffled) as ctx:
        relabelled = patch_inputs(ctx, DIMS)
    np.testing.assert_array_equal(inputs.train, relabelled.train)
    np.testing.assert_array_equal(inputs.test, relabelled.test)
    assert inputs.train.shape == (labels.size, DIMS, 1, 1)
    flat = inputs.train[:, :, 0, 0].astype(np.float64)
    # PCA's components, each divided by its spread: mean 0 and variance 1 on the training images.
    np.testing.assert_allclose(flat.mean(axis=0), 0.0, atol=1e-4)
    np.testing.assert_allclose(flat.var(axis=0, ddof=1), 1.0, rtol=1e-3)


def test_the_released_model_takes_images_and_gives_the_trained_models_logits(tmp_path):
    with digits_context(_config(), tmp_path) as ctx:
        inputs = patch_inputs(ctx, DIMS)
        images = ctx.dataset.x_test[:40]
    cached_test = inputs.test[:40]
    torch.manual_seed(3)
    model = build_model("logistic", (DIMS, 1, 1), 10)
    released = FeatureClassifier(inputs, model, images.shape[1:])
    unknown = images.copy()
    unknown[-1] = unknown[-1] * 0.5  # one image never seen: the whole batch is encoded
    with torch.inference_mode():
        looked_up = released(torch.tensor(images))
        encoded = released(torch.tensor(unknown))[:-1]
        from_features = model(torch.as_tensor(cached_test))
    # Known images take the run's own features; others are encoded in torch, which agrees with
    # numpy's encoding to float32 rounding and gives the same predictions.
    assert torch.equal(looked_up, from_features)
    np.testing.assert_allclose(encoded.numpy(), from_features[:-1].numpy(), atol=2e-3)
    assert torch.equal(encoded.argmax(1), from_features[:-1].argmax(1))
    assert not any(p.requires_grad for p in released.encode.parameters())


def test_patches_are_refused_for_the_small_cnn_naming_the_fix():
    with pytest.raises(InvalidInputError, match="cnn_model=logistic"):
        validate_labeldp_pro(_config(cnn_model="cnn-small", model="cnn"))


def test_a_run_on_patch_features_says_what_its_model_read(tmp_path):
    from labeldp_core.cache import ResultCache
    from labeldp_core.experiments.runner import run

    config = make_config(
        "labeldp-pro",
        "digits",
        8.0,
        epochs=2,
        settings={"features": "patches", "feature_dims": DIMS},
    )
    store = ResultCache(tmp_path)
    try:
        result = run(config, store)
    finally:
        store.close()
    assert result.details["features"].startswith(f"label-free patch features: {DIMS} whitened")
    assert result.details["model_trained"] == "logistic"
    # Two epochs of a 16-feature logistic model at ε 8 learn: well above chance (0.1) on 360
    # test images (a binomial sd of 0.016 at chance).
    assert result.test_accuracy > 0.3


def test_other_images_in_the_same_cache_get_their_own_features(tmp_path):
    """A canary audit places crafted images in the training set: never the stored features."""
    with digits_context(_config(), tmp_path) as ctx:
        before = patch_inputs(ctx, DIMS)
        data = ctx.dataset
        crafted = data.x_train.copy()
        crafted[0] = crafted[0][:, ::-1, :]
        ctx.__dict__["dataset"] = dataclasses.replace(data, x_train=crafted)
        after = patch_inputs(ctx, DIMS)
    assert not np.array_equal(before.train[0], after.train[0])
