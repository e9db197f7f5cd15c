"""Laplace family speed: the vectorised release and ALIBI posterior vs a per-example loop.

Run: ``.venv/bin/python bench/laplace_speed.py [--n 60000]``. Both sides get the same labels, the
same epsilon and generators with the same seed, so the released vectors must be identical and the
posteriors equal to rounding. RR-on-bins draws in a different order, so there the share of kept
bins must agree within sampling error. The script checks all three and prints each side's time
and the speed-up, measured side by side in this run. The per-example posterior is the textbook
one: prior times the product of all K coordinates' Laplace densities, normalised in log space.
"""

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.mechanisms import (
    alibi_posterior,
    laplace_one_hot,
    optimal_bins,
    rr_on_bins,
)

EPSILON = 1.0
K = 10


def loop_release(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One example at a time: a one-hot vector plus K Laplace draws."""
    scale = 2.0 / EPSILON
    rows = []
    for label in labels:
        row = rng.laplace(0.0, scale, size=K)
        row[label] += 1.0
        rows.append(row)
    return np.array(rows)


def loop_posterior(noisy: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """One example at a time: log prior + sum of K log densities per class, then log-sum-exp."""
    scale = 2.0 / EPSILON
    out = np.empty_like(noisy)
    for i, row in enumerate(noisy):
        logs = []
        for k in range(K):
            total = math.log(prior[k])
            for j in range(K):
                target = 1.0 if j == k else 0.0
                total += -abs(row[j] - target) / scale - math.log(2 * scale)
            logs.append(total)
        top = max(logs)
        weights = [math.exp(v - top) for v in logs]
        norm = sum(weights)
        out[i] = [w / norm for w in weights]
    return out


def loop_rr_bins(values: np.ndarray, bins, rng: np.random.Generator) -> np.ndarray:
    """One example at a time: keep the bin with probability e^eps/(e^eps+m-1), else another."""
    m = bins.num_bins
    keep = 1.0 / (1.0 + (m - 1) * math.exp(-bins.epsilon))
    out = np.empty(values.shape[0])
    for i, value in enumerate(values):
        index = int(bins.bin_of_value[int(value)])
        if rng.random() >= keep:
            other = int(rng.integers(0, m - 1))
            index = other + (other >= index)
        out[i] = bins.outputs[index]
    return out


def timed(function: Callable[[], np.ndarray], repeats: int) -> tuple[float, np.ndarray]:
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60_000, help="examples (fashion-mnist: 60,000)")
    args = parser.parse_args()
    labels = np.random.default_rng(0).integers(0, K, size=args.n)
    prior = np.random.default_rng(1).dirichlet(np.ones(K))
    print(f"n = {args.n:,} labels, K = {K}, epsilon = {EPSILON}; best of repeated runs")

    fast_t, fast = timed(lambda: laplace_one_hot(labels, EPSILON, K, np.random.default_rng(7)), 5)
    slow_t, slow = timed(lambda: loop_release(labels, np.random.default_rng(7)), 1)
    assert np.array_equal(fast, slow), "the two releases differ"
    print(
        f"one-hot release : vectorised {fast_t * 1e3:8.1f} ms, loop {slow_t * 1e3:8.1f} ms, "
        f"speed-up {slow_t / fast_t:6.0f}x (identical outputs)"
    )

    fast_t, fast_p = timed(lambda: alibi_posterior(fast, EPSILON, prior), 5)
    slow_t, slow_p = timed(lambda: loop_posterior(fast, prior), 1)
    gap = float(np.abs(fast_p - slow_p).max())
    assert gap < 1e-12, gap
    print(
        f"ALIBI posterior : vectorised {fast_t * 1e3:8.1f} ms, loop {slow_t * 1e3:8.1f} ms, "
        f"speed-up {slow_t / fast_t:6.0f}x (max difference {gap:.1e})"
    )

    bins = optimal_bins(np.arange(K, dtype=float), prior, 3.0)
    values = labels.astype(float)
    fast_t, fast_r = timed(lambda: rr_on_bins(values, bins, np.random.default_rng(9)), 5)
    slow_t, slow_r = timed(lambda: loop_rr_bins(values, bins, np.random.default_rng(9)), 1)
    own = bins.outputs[bins.bin_of_value[labels]]
    kept_fast, kept_slow = np.mean(fast_r == own), np.mean(slow_r == own)
    sigma = math.sqrt(kept_fast * (1 - kept_fast) / args.n)
    assert abs(kept_fast - kept_slow) < 6 * sigma, (kept_fast, kept_slow)
    print(
        f"RR-on-bins      : vectorised {fast_t * 1e3:8.1f} ms, loop {slow_t * 1e3:8.1f} ms, "
        f"speed-up {slow_t / fast_t:6.0f}x ({bins.num_bins} bins; kept {kept_fast:.3f} vs "
        f"{kept_slow:.3f})"
    )


if __name__ == "__main__":
    main()
