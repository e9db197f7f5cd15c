"""DPPL-Public speed: blocked, vectorised utilities and selection vs a per-candidate loop.

Run: ``.venv/bin/python bench/dppl_speed.py`` (``--quick`` for a tenth of the candidates).
Sizes are Fashion-MNIST's with the defaults: 12,000 public candidates (20% of the training split)
against the ~19,000 private examples left at imbalance 10, in the CNN encoder's 32 dimensions.
The embeddings are synthetic (speed does not depend on their values). Both versions compute the
same utilities; the script checks that and prints the time of each and the ratio.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.families.prototypes.exponential import exponential_mechanism
from labeldp_core.families.prototypes.release import class_utilities, normalise_rows


def loop_utilities(candidates, private, labels, num_classes, low, high):
    """One candidate at a time: its scores against every private example, summed per class."""
    private = normalise_rows(private)
    utilities = np.empty((num_classes, len(candidates)))
    for p, candidate in enumerate(normalise_rows(candidates)):
        scores = (np.clip(1 + private @ candidate, low, high) - low) / (high - low)
        utilities[:, p] = np.bincount(labels, weights=scores, minlength=num_classes)
    return utilities


def loop_selection(utilities, epsilon, rng):
    """One class at a time: stable softmax of epsilon u, then numpy's weighted choice."""
    chosen = []
    for row in utilities:
        weights = np.exp(epsilon * (row - row.max()))
        chosen.append(rng.choice(row.size, p=weights / weights.sum()))
    return np.asarray(chosen)


def best_of(repeats, function):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the candidates")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_candidates = 1_200 if args.quick else 12_000
    n_private, dim, classes, low, high = 19_000, 32, 10, 1.0, 2.0
    centres = rng.normal(size=(classes, dim))
    labels = rng.integers(0, classes, size=n_private)
    private = centres[labels] + rng.normal(size=(n_private, dim))
    candidates = centres[rng.integers(0, classes, n_candidates)] + rng.normal(
        size=(n_candidates, dim)
    )
    print(
        f"{n_candidates:,} candidates x {n_private:,} private examples x {dim} dims, "
        f"{classes} classes"
    )

    fast = class_utilities(candidates, private, labels, classes, min_score=low, max_score=high)
    slow = loop_utilities(candidates, private, labels, classes, low, high)
    gap = np.abs(fast - slow).max() / np.abs(slow).max()
    print(f"largest relative difference between the two: {gap:.1e} (float32 blocks vs float64)")

    vectorised = best_of(
        3,
        lambda: class_utilities(
            candidates, private, labels, classes, min_score=low, max_score=high
        ),
    )
    looped = best_of(1, lambda: loop_utilities(candidates, private, labels, classes, low, high))
    print(f"utilities, blocked matrix products: {vectorised:8.3f} s")
    print(f"utilities, per-candidate loop:      {looped:8.3f} s")
    print(f"speedup of the utilities: {looped / vectorised:.1f}x")

    repeats = 200
    vector_pick = best_of(
        3,
        lambda: [exponential_mechanism(fast, 1.0, 1.0, rng, monotone=True) for _ in range(repeats)],
    )
    loop_pick = best_of(3, lambda: [loop_selection(fast, 1.0, rng) for _ in range(repeats)])
    print(
        f"selection of one prototype per class, x{repeats}: vectorised {vector_pick:.3f} s, "
        f"per-class loop {loop_pick:.3f} s, speedup {loop_pick / vector_pick:.1f}x"
    )


if __name__ == "__main__":
    main()
