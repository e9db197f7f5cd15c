"""Label-free grouping of images: PCA to a few components, then k-means.

Used wherever a mechanism needs groups of similar examples that do not depend on the labels (a
cluster prior built from noisy label histograms). Only the images are read, so the cluster ids cost
no label privacy.
"""

import numpy as np

from labeldp_core.base.validation import check_positive
from labeldp_core.errors import InvalidInputError

__all__ = ["PCA_COMPONENTS", "cluster_images"]

#: PCA components kept before k-means: enough for 28x28 images, cheap for k-means.
PCA_COMPONENTS = 50


def cluster_images(
    images: np.ndarray, clusters: int, seed: int, components: int = PCA_COMPONENTS
) -> np.ndarray:
    """Cluster ids in 0..clusters-1 for every image (one k-means run, k-means++ start).

    Args:
        images: (n, ...) array of images; flattened per example.
        clusters: the number of clusters, at most n.
        seed: seeds PCA's randomised solver and k-means.
        components: PCA components kept (fewer if the images have fewer pixels).

    Returns:
        An int64 array of shape (n,).
    """
    clusters = int(check_positive(clusters, "clusters", integer=True))
    flat = np.asarray(images, dtype=np.float32).reshape(len(images), -1)
    if clusters > flat.shape[0]:
        raise InvalidInputError(
            f"clusters={clusters} is more than the {flat.shape[0]} images to cluster; "
            f"use at most {flat.shape[0]}"
        )
    from sklearn.cluster import KMeans  # here: the registry imports this module, not sklearn
    from sklearn.decomposition import PCA

    kept = min(components, flat.shape[1], flat.shape[0])
    reduced = PCA(n_components=kept, svd_solver="randomized", random_state=seed).fit_transform(flat)
    kmeans = KMeans(n_clusters=clusters, n_init=1, random_state=seed)
    return kmeans.fit_predict(reduced).astype(np.int64)
