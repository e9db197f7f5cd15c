"""LabelDP-Pro on label-free patch features: the images' codes, reduced by PCA, as the inputs.

Label DP hides the labels only: the images are public, so anything learnt from the images alone
costs no label privacy. ``features=patches`` trains LabelDP-Pro's model (logistic regression by
default) on Coates and Ng's patch features (:mod:`labeldp_core.data.label_free_features`: a
k-means dictionary of whitened 5x5 patches, pooled triangle codes, as RR-with-prior's prior and
PATE's ``features=patches`` use), standardised and reduced by PCA to ``feature_dims`` whitened
components. A convex model of a few hundred weights needs far fewer steps and takes far less of
the noise's norm (which grows as the square root of the model's size) than the small CNN: the
same signal against less noise. Tramer and Boneh (*Differentially Private Learning Needs Better
Features (or Much More Data)*, ICLR 2021) make the same point for DP-SGD with hand-crafted
(ScatterNet) features.

The dictionary, the standardisation and the PCA read the training images only (seeded by the
run's seed); the released model takes images in (:class:`FeatureClassifier`), so the
label-inference figures and the canary audit query it as any other.
"""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from labeldp_core.data.label_free_features import (
    PatchDictionary,
    encode_patches,
    patch_dictionary,
    patch_settings,
)
from labeldp_core.engine.context import RunContext
from labeldp_core.models.patch_encoder import FeatureSpace, PatchClassifier, fitted_space

__all__ = ["FeatureClassifier", "PatchInputs", "patch_inputs"]

#: Added to a principal component's spread before dividing by it.
_FLOOR = 1e-6


@dataclass(frozen=True)
class PatchInputs:
    """The training and test images' reduced features, and what maps an image to its features.

    Attributes:
        train: (n, k, 1, 1) float32 features of the training images (an image-shaped stack, as
            the trainer takes).
        test: the same for the test images.
        space: the patch dictionary and the standardisation of its codes.
        projection: (k, codes) rows: the principal directions, each divided by its spread.
        offset: (k,) the projection of the codes' mean, subtracted after projecting.
        rows: each training then test image's digest (:func:`_row_digests`), to its row of
            ``train`` and ``test`` stacked.
    """

    train: np.ndarray
    test: np.ndarray
    space: FeatureSpace
    projection: np.ndarray
    offset: np.ndarray
    rows: Mapping[bytes, int]


class FeatureClassifier(nn.Module):
    """Images in, logits out: the patch codes, their PCA projection, then the trained model.

    Encoding is the costly part (on Fashion-MNIST, 246 s for the 70,000 training and test images
    against 40 s of training, in one profiled run), and the run's attack figures and the canary
    audit query the model on the very images whose features the run computed. So an input batch
    whose every image is one of the run's (compared by a digest of its bytes) takes those
    features; any other batch is encoded. Either way the logits are a function of the images
    alone.
    """

    def __init__(self, inputs: PatchInputs, model: nn.Module, image_shape: tuple[int, ...]):
        super().__init__()
        reduce = nn.Linear(inputs.projection.shape[1], inputs.projection.shape[0])
        with torch.no_grad():
            reduce.weight.copy_(torch.as_tensor(inputs.projection))
            reduce.bias.copy_(torch.as_tensor(-inputs.offset))
        reduce.requires_grad_(False)
        self.encode = PatchClassifier(inputs.space, reduce, image_shape)
        self.model = model
        self._rows = inputs.rows
        self._features = torch.as_tensor(np.concatenate([inputs.train, inputs.test])[:, :, 0, 0])

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Logits ``(n, K)`` of images ``(n, C, H, W)``."""
        rows = [self._rows.get(key) for key in _row_digests(images.detach().cpu().numpy())]
        features = self.encode(images) if None in rows else self._features[rows]
        return self.model(features[:, :, None, None])


def _row_digests(images: np.ndarray) -> list[bytes]:
    """A digest of each image's float32 bytes."""
    flat = np.ascontiguousarray(images, dtype=np.float32).reshape(len(images), -1)
    return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in flat]


def _reduced(ctx: RunContext, dims: int) -> dict[str, np.ndarray]:
    """Compute the dictionary, the codes of every image and their whitened principal components."""
    from sklearn.decomposition import PCA  # here: listing mechanisms should not import sklearn

    data, seed = ctx.dataset, ctx.config.seed
    ctx.progress(0.0, "learning a dictionary of image patches (no labels) and encoding the images")
    dictionary = patch_dictionary(data.x_train, seed)
    raw = encode_patches(data.x_train, dictionary)  # once: encoding is the costly step
    space = fitted_space(dictionary, raw)
    codes = space.standardise(raw)
    kept = min(dims, codes.shape[1], codes.shape[0])
    pca = PCA(n_components=kept, svd_solver="randomized", random_state=seed).fit(codes)
    spread = np.sqrt(pca.explained_variance_) + _FLOOR
    projection = (pca.components_ / spread[:, None]).astype(np.float32)
    offset = (projection @ pca.mean_).astype(np.float32)
    test_codes = space.encode(data.x_test)
    return {
        "train": codes @ projection.T - offset,
        "test": test_codes @ projection.T - offset,
        "projection": projection,
        "offset": offset,
        "mean": space.dictionary.mean,
        "whiten": space.dictionary.whiten,
        "atoms": space.dictionary.atoms,
        "centre": space.centre,
        "scale": space.scale,
    }


def patch_inputs(ctx: RunContext, dims: int) -> PatchInputs:
    """The run's images as ``dims`` whitened principal components of their patch codes, cached.

    Cached per dataset, seed, the dictionary's constants, ``dims`` and the images themselves
    (the model audit's context places crafted canary images in the training set): the first
    run of a seed learns the dictionary and encodes every image (minutes on 70,000 images); the
    others read it. No label is read.
    """
    data = ctx.dataset
    digests = _row_digests(data.x_train) + _row_digests(data.x_test)
    # The images' own digest in the key: a canary audit's crafted images get features of their own.
    images = hashlib.blake2b(b"".join(digests), digest_size=16).hexdigest()
    payload = {"dataset": ctx.config.dataset, "seed": ctx.config.seed, **patch_settings()}
    payload |= {"components": dims, "whitened": True, "images": images}
    arrays = ctx.cache.arrays_or_compute(
        "labeldp-pro-patch-inputs",
        payload,
        lambda: _reduced(ctx, dims),
        required=["train", "test", "projection", "offset", "scale"],
        by=__name__,
    )
    dictionary = PatchDictionary(arrays["mean"], arrays["whiten"], arrays["atoms"])
    return PatchInputs(
        train=arrays["train"].astype(np.float32)[:, :, None, None],
        test=arrays["test"].astype(np.float32)[:, :, None, None],
        space=FeatureSpace(dictionary, arrays["centre"], arrays["scale"]),
        projection=arrays["projection"],
        offset=arrays["offset"],
        rows={key: row for row, key in enumerate(digests)},
    )
