"""RR-with-prior speed: the vectorised release vs a per-example loop, and the cluster prior's cost.

Run: ``.venv/bin/python bench/rr_prior_speed.py``. Prints the time of ``rr_with_prior`` on 60,000
labels with K = 10 and random priors next to a straightforward per-example Python loop on the same
inputs (target: at least 100x faster), checks that both choose the same k*, then times the
cluster prior on fashion-mnist (PCA + k-means on the images, then the noisy label histograms).
"""

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.data import is_available, load_dataset
from labeldp_core.data.clusters import cluster_images
from labeldp_core.mechanisms import (
    noisy_label_counts,
    optimal_set_size,
    prior_from_counts,
    rr_with_prior,
)

N, K, EPSILON, CLUSTERS = 60_000, 10, 1.0, 20


def loop_rr_with_prior(
    labels: np.ndarray, priors: np.ndarray, epsilon: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """RR-with-prior one example at a time, written the obvious way; returns labels and k*."""
    released = np.empty_like(labels)
    sizes = np.empty_like(labels)
    e = math.exp(epsilon)
    for i in range(labels.shape[0]):
        order = sorted(range(priors.shape[1]), key=lambda label, row=priors[i]: -row[label])
        best_size, best_value, mass = 1, -1.0, 0.0
        for size in range(1, len(order) + 1):
            mass += priors[i, order[size - 1]]
            value = mass * e / (e + size - 1)
            if value > best_value:
                best_size, best_value = size, value
        members = order[:best_size]
        if labels[i] in members:
            if rng.random() < e / (e + best_size - 1):
                released[i] = labels[i]
            else:
                others = [label for label in members if label != labels[i]]
                released[i] = others[rng.integers(len(others))]
        else:
            released[i] = members[rng.integers(best_size)]
        sizes[i] = best_size
    return released, sizes


def best_of(repeats: int, function, *args) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    priors = rng.dirichlet(np.ones(K), size=N)
    labels = rng.integers(0, K, size=N)

    _, loop_sizes = loop_rr_with_prior(labels, priors, EPSILON, np.random.default_rng(1))
    same = np.array_equal(loop_sizes, optimal_set_size(priors, EPSILON))
    print(f"k* of the loop equals the vectorised k* on all {N:,} rows: {same}")

    vectorised = best_of(5, rr_with_prior, labels, priors, EPSILON, np.random.default_rng(1))
    loop = best_of(1, loop_rr_with_prior, labels, priors, EPSILON, np.random.default_rng(1))
    print(f"rr_with_prior, {N:,} labels, K = {K}: vectorised {1e3 * vectorised:8.1f} ms "
          f"({N / vectorised:,.0f} labels/s)")  # fmt: skip
    print(f"per-example loop:                       {1e3 * loop:8.1f} ms "
          f"({N / loop:,.0f} labels/s)")  # fmt: skip
    print(f"speedup: {loop / vectorised:.0f}x (target >= 100x)")

    dataset = "fashion-mnist" if is_available("fashion-mnist") else "mnist-5k"
    data = load_dataset(dataset)
    start = time.perf_counter()
    ids = cluster_images(data.x_train, CLUSTERS, seed=0)
    clustering = time.perf_counter() - start
    start = time.perf_counter()
    counts = noisy_label_counts(
        ids, data.y_train, CLUSTERS, data.num_classes, 0.2, np.random.default_rng(0)
    )
    prior_from_counts(counts)[ids]
    histogram = time.perf_counter() - start
    print(f"cluster prior on {dataset} ({data.n_train:,} images, {CLUSTERS} clusters): "
          f"PCA + k-means {clustering:.2f} s (cached once per dataset/seed/clusters), "
          f"noisy histograms + priors {1e3 * histogram:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
