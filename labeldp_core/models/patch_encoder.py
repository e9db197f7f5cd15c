"""A linear model on label-free patch features that takes images in (PATE, LabelDP-Pro).

:mod:`~labeldp_core.data.label_free_features` encodes images in NumPy (Coates and Ng's k-means
dictionary of whitened 5x5 patches, pooled triangle codes); this module adds their
standardisation (:class:`FeatureSpace`, from images alone) and :class:`PatchClassifier`, the same
encoding in torch before a layer, so that a model trained on the features can be released as one
that takes images: the label-inference figures and the canary audit query it as any other. PATE's
``features=patches`` student and LabelDP-Pro's ``features=patches`` model are released this way.
It imports torch.
"""

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from labeldp_core.data.label_free_features import (
    PATCH_SIZE,
    PatchDictionary,
    encode_patches,
    patch_dictionary,
    pool_bounds,
)

__all__ = ["FeatureSpace", "PatchClassifier", "feature_space", "fitted_space"]

#: Added to a feature's spread before dividing by it.
_FLOOR = 1e-6


@dataclass(frozen=True)
class FeatureSpace:
    """The patch dictionary and the standardisation of its codes (all from images, no label)."""

    dictionary: PatchDictionary
    centre: np.ndarray
    scale: np.ndarray

    def standardise(self, codes: np.ndarray) -> np.ndarray:
        """Patch codes already computed under this dictionary, standardised: float32."""
        return ((codes - self.centre) / self.scale).astype(np.float32)

    def encode(self, images: np.ndarray) -> np.ndarray:
        """Standardised patch codes of ``images``: float32 (n, features)."""
        return self.standardise(encode_patches(images, self.dictionary))


def fitted_space(dictionary: PatchDictionary, codes: np.ndarray) -> FeatureSpace:
    """The space standardising by the means and spreads of ``codes`` (images' codes, no label)."""
    return FeatureSpace(dictionary, codes.mean(axis=0), codes.std(axis=0) + _FLOOR)


def feature_space(train_images: np.ndarray, public_images: np.ndarray, seed: int) -> FeatureSpace:
    """Learn the dictionary on every training image and standardise on the public part's codes."""
    dictionary = patch_dictionary(train_images, seed)
    return fitted_space(dictionary, encode_patches(public_images, dictionary))


class PatchClassifier(nn.Module):
    """Images in, logits out: the patch encoding in torch, standardised, then a linear layer.

    The released student of ``features=patches``: it computes on images what
    :func:`~labeldp_core.data.label_free_features.encode_patches` computes (the same dictionary,
    triangle codes and pooling), so whoever holds the model can apply it to any image.
    """

    def __init__(self, space: FeatureSpace, head: nn.Linear, image_shape: tuple[int, ...]) -> None:
        super().__init__()
        dictionary = space.dictionary
        self.register_buffer("mean", torch.as_tensor(dictionary.mean, dtype=torch.float32))
        self.register_buffer("whiten", torch.as_tensor(dictionary.whiten, dtype=torch.float32))
        self.register_buffer("atoms", torch.as_tensor(dictionary.atoms, dtype=torch.float32))
        self.register_buffer("centre", torch.as_tensor(space.centre, dtype=torch.float32))
        self.register_buffer("scale", torch.as_tensor(space.scale, dtype=torch.float32))
        self.register_buffer("pool", torch.as_tensor(_pooling(image_shape[-2:])))
        self.head = head

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Logits ``(n, K)`` of images ``(n, C, H, W)``."""
        patches = functional.unfold(images.float(), PATCH_SIZE).transpose(1, 2)
        centred = patches - patches.mean(dim=-1, keepdim=True)
        normal = centred / torch.sqrt(centred.var(dim=-1, unbiased=False, keepdim=True) + 0.01)
        codes = (normal - self.mean) @ self.whiten
        squared = (codes**2).sum(-1, keepdim=True) - 2 * codes @ self.atoms.T
        distances = torch.sqrt(torch.clamp(squared + (self.atoms**2).sum(-1), min=0.0))
        triangle = torch.relu(distances.mean(dim=-1, keepdim=True) - distances)
        pooled = torch.einsum("gl,nla->nga", self.pool, triangle).flatten(1)
        return self.head((pooled - self.centre) / self.scale)


def _pooling(image_size: tuple[int, ...]) -> np.ndarray:
    """``(grid cells, positions)`` weights averaging each pooling cell's patch positions."""
    rows, cols = (side - PATCH_SIZE + 1 for side in image_size)
    row_cell = np.searchsorted(pool_bounds(rows), np.arange(rows), side="right") - 1
    col_cell = np.searchsorted(pool_bounds(cols), np.arange(cols), side="right") - 1
    grid = int(row_cell.max()) + 1
    cell = (row_cell[:, None] * grid + col_cell[None, :]).ravel()
    weights = np.zeros((grid * grid, rows * cols), dtype=np.float32)
    weights[cell, np.arange(rows * cols)] = 1.0
    return weights / weights.sum(axis=1, keepdims=True)
