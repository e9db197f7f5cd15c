"""Label-free image features: a k-means dictionary of image patches (RR-with-prior, PATE).

Ghazi et al. 2021 (arXiv 2102.06062, Algorithm 4) cluster features learnt without labels and
release each cluster's label histogram as the prior of RR-with-prior. Self-supervised training
does not fit the explorer's CPU budget, so the features here are Coates and Ng's single-layer
network (AISTATS 2011, "An Analysis of Single-Layer Networks in Unsupervised Feature
Learning"): small patches cut at random from the training images, each normalised for
brightness and contrast and ZCA-whitened, are clustered by k-means into a dictionary of atoms;
every image position is then encoded by the "triangle" activation max(0, mean distance -
distance to atom) and the codes are averaged over a coarse grid of the image.

RR-with-prior clusters these features for its prior (``prior_features=patches``); PATE's teachers
and student learn on them (``features=patches``). Every step reads the images only: no function
here takes labels, so the features, and the clusters of them, are the same whatever the labels
are and cost no label privacy.

Measured on Fashion-MNIST (seed 0, k-means after PCA to 50 components, cluster purity: share of
training images whose label is their cluster's most common one): patches 0.779 / 0.792 / 0.811
at 50 / 100 / 200 clusters; pixels 0.700 / 0.743 / 0.777; HOG-like gradient histograms 0.725 /
0.756 / 0.784; 64 random 5x5 convolutions with ReLU and 4x4 pooling 0.717 / 0.754 / 0.782; a
small convolutional autoencoder trained 2 epochs on all training images (32-d code) 0.725 /
0.754 / 0.782.
"""

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from labeldp_core.errors import InvalidInputError

__all__ = [
    "ATOMS",
    "PATCHES_PER_IMAGE",
    "PATCH_SAMPLES",
    "PATCH_SIZE",
    "POOL_GRID",
    "PatchDictionary",
    "encode_patches",
    "patch_dictionary",
    "patch_features",
    "patch_points",
    "patch_settings",
    "pool_bounds",
]

#: Side of the square patches (pixels).
PATCH_SIZE = 5
#: Dictionary atoms, k-means centroids of the whitened patches.
ATOMS = 64
#: Patches cut at random from the training images to learn the whitening and the dictionary
#: (at most PATCHES_PER_IMAGE per image on small datasets: 20 per image already cover them).
PATCH_SAMPLES = 100_000
PATCHES_PER_IMAGE = 20
#: The codes are averaged over a POOL_GRID x POOL_GRID grid of the image.
POOL_GRID = 4
#: Added to a patch's variance before dividing by its root (flat patches stay small).
_CONTRAST_FLOOR = 0.01
#: Added to the eigenvalues of the patch covariance before whitening (Coates and Ng's 0.1).
_WHITEN_FLOOR = 0.1
_DICTIONARY_ITERATIONS = 50
_BATCH = 100


def patch_settings() -> dict[str, int]:
    """The constants the features depend on, for cache keys."""
    return {
        "patch_size": PATCH_SIZE,
        "atoms": ATOMS,
        "patch_samples": PATCH_SAMPLES,
        "patches_per_image": PATCHES_PER_IMAGE,
        "pool_grid": POOL_GRID,
    }


def _as_images(images: np.ndarray) -> np.ndarray:
    """``images`` as float32 (n, channels, height, width), checked large enough for a patch."""
    array = np.asarray(images, dtype=np.float32)
    if array.ndim == 3:
        array = array[:, None]
    if array.ndim != 4 or min(array.shape[2:]) < PATCH_SIZE or array.shape[0] == 0:
        raise InvalidInputError(
            f"patch features need images of shape (n, channels, height, width) with sides of at "
            f"least {PATCH_SIZE} pixels, got shape {array.shape}; use prior_features=pixels"
        )
    return array


def _normalise(patches: np.ndarray) -> np.ndarray:
    """Each row minus its mean, divided by its standard deviation (brightness and contrast)."""
    centred = patches - patches.mean(axis=-1, keepdims=True)
    return centred / np.sqrt(centred.var(axis=-1, keepdims=True) + _CONTRAST_FLOOR)


def _sample_patches(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random patches, flattened channel-major, shape (samples, c * p * p).

    PATCH_SAMPLES of them, or PATCHES_PER_IMAGE per image if that is fewer.
    """
    n, channels, height, width = images.shape
    samples = min(PATCH_SAMPLES, PATCHES_PER_IMAGE * n)
    which = rng.integers(0, n, samples)
    rows = rng.integers(0, height - PATCH_SIZE + 1, samples)
    cols = rng.integers(0, width - PATCH_SIZE + 1, samples)
    offsets = np.arange(PATCH_SIZE)
    patches = images[
        which[:, None, None, None],
        np.arange(channels)[None, :, None, None],
        (rows[:, None] + offsets)[:, None, :, None],
        (cols[:, None] + offsets)[:, None, None, :],
    ]
    return patches.reshape(samples, -1)


@dataclass(frozen=True)
class PatchDictionary:
    """What encodes an image: the patches' mean, their ZCA whitening and the k-means atoms.

    ``atoms`` live in the whitened space; ``mean`` has one entry per patch pixel (channel-major).
    """

    mean: np.ndarray
    whiten: np.ndarray
    atoms: np.ndarray


def _dictionary(images: np.ndarray, seed: int) -> PatchDictionary:
    """The patches' mean, their ZCA whitening matrix and the k-means atoms (whitened space)."""
    from sklearn.cluster import KMeans  # here: the registry imports this module, not sklearn

    patches = _normalise(_sample_patches(images, np.random.default_rng([seed, 0x9A7C])))
    mean = patches.mean(axis=0)
    values, vectors = np.linalg.eigh(np.cov(patches - mean, rowvar=False))
    whiten = (vectors / np.sqrt(values + _WHITEN_FLOOR)) @ vectors.T
    kmeans = KMeans(
        n_clusters=ATOMS, n_init=1, max_iter=_DICTIONARY_ITERATIONS, random_state=seed
    ).fit((patches - mean) @ whiten)
    return PatchDictionary(
        mean, whiten.astype(np.float32), kmeans.cluster_centers_.astype(np.float32)
    )


def pool_bounds(size: int) -> np.ndarray:
    """Start of each of the POOL_GRID bands of ``size`` positions (near-equal widths)."""
    return np.linspace(0, size, POOL_GRID + 1).round().astype(np.int64)[:-1]


def _encode(
    images: np.ndarray, mean: np.ndarray, whiten: np.ndarray, atoms: np.ndarray
) -> np.ndarray:
    """Triangle codes of every patch position, averaged over the pooling grid: (n, A * g * g).

    The arrays are modified in place and the batches kept small: on a shared CPU, allocating
    the (positions, atoms) distance table afresh for each operation cost more than the arithmetic.
    """
    windows = sliding_window_view(images, (PATCH_SIZE, PATCH_SIZE), axis=(2, 3))
    n, _, rows, cols = windows.shape[:4]
    flat = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * rows * cols, -1)
    codes = _normalise(flat) @ whiten
    codes -= mean @ whiten
    table = codes @ (-2.0 * atoms.T)  # squared distances to the atoms, completed in place
    table += np.einsum("ij,ij->i", codes, codes)[:, None]
    table += np.einsum("ij,ij->i", atoms, atoms)
    np.sqrt(np.maximum(table, 0.0, out=table), out=table)
    np.subtract(table.mean(axis=1, keepdims=True), table, out=table)
    np.maximum(table, 0.0, out=table)  # the triangle activation
    grid = table.reshape(n, rows, cols, -1)
    row_bounds, col_bounds = pool_bounds(rows), pool_bounds(cols)
    sums = np.add.reduceat(np.add.reduceat(grid, row_bounds, axis=1), col_bounds, axis=2)
    widths = np.diff(np.append(row_bounds, rows))[:, None] * np.diff(np.append(col_bounds, cols))
    return (sums / widths[None, :, :, None]).reshape(n, -1)


def patch_dictionary(images: np.ndarray, seed: int) -> PatchDictionary:
    """The whitening and dictionary learnt from PATCH_SAMPLES patches of ``images`` (no label).

    Raises:
        InvalidInputError: if ``images`` is not a stack of images at least PATCH_SIZE wide.
    """
    return _dictionary(_as_images(images), seed)


def encode_patches(images: np.ndarray, dictionary: PatchDictionary) -> np.ndarray:
    """Every image's pooled triangle codes under ``dictionary``: float32 (n, ATOMS * POOL_GRID**2).

    Raises:
        InvalidInputError: if ``images`` is not a stack of images at least PATCH_SIZE wide.
    """
    array = _as_images(images)
    parts = [
        _encode(array[start : start + _BATCH], dictionary.mean, dictionary.whiten, dictionary.atoms)
        for start in range(0, array.shape[0], _BATCH)
    ]
    return np.concatenate(parts).astype(np.float32)


def patch_features(images: np.ndarray, seed: int) -> np.ndarray:
    """Label-free features of every image: pooled triangle codes of a learnt patch dictionary.

    The whitening and the dictionary are learnt from PATCH_SAMPLES patches of ``images`` (seeded
    by ``seed``); then every image is encoded. No label is read.

    Args:
        images: (n, channels, height, width) or (n, height, width) images, sides >= PATCH_SIZE.
        seed: seeds the patch sampling and the dictionary's k-means.

    Returns:
        A float32 array of shape (n, ATOMS * POOL_GRID**2).

    Raises:
        InvalidInputError: if ``images`` is not a stack of images at least PATCH_SIZE wide.
    """
    return encode_patches(images, patch_dictionary(images, seed))


def patch_points(images: np.ndarray, seed: int, components: int) -> np.ndarray:
    """:func:`patch_features` reduced by PCA to ``components`` dimensions, for k-means and caching.

    The 1,024 features of a 28x28 image take 245 MB for 60,000 images; their first 50 principal
    components (what :func:`~labeldp_core.data.clusters.cluster_images` keeps anyway) take 12 MB.
    """
    from sklearn.decomposition import PCA  # here: the registry imports this module, not sklearn

    features = patch_features(images, seed)
    kept = min(components, features.shape[1], features.shape[0])
    pca = PCA(n_components=kept, svd_solver="randomized", random_state=seed)
    return pca.fit_transform(features).astype(np.float32)
