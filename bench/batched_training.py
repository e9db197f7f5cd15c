"""A grid's small models trained one by one vs together as one batched model, per family.

Run: ``.venv/bin/python bench/batched_training.py [--epochs N] [--seeds S ...] [--dataset D]``.
For each family and small model below, the grid of the curves (the demo ε values x the seeds,
21 points by default) is computed twice into two empty caches, clean baselines included:

1. one by one, as ``sweep`` computed it before (:func:`labeldp_core.experiments.run` per point);
2. together (:func:`labeldp_core.experiments.together.run_together`): the points' models train
   as one batched model.

It prints the wall time of each, the ratio one-by-one / together, and whether every point's JSON
is the same text both ways (timing fields aside): it must be. The two ways alternate which goes
first from one family to the next, and the load average is printed before and after: the
machine may be shared, so the figures are noisy. Everything runs in this process, on the torch
threads a training takes (``LABELDP_TORCH_THREADS``, 1 by default).
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.cache import ResultCache
from labeldp_core.experiments import make_config, run
from labeldp_core.experiments.demo import DEMO_EPSILONS
from labeldp_core.experiments.together import run_together

#: (mechanism, model): families that train a small model on released hard labels.
GRIDS = (("rr", "logistic"), ("rr", "mlp"), ("rr-prior", "mlp"), ("laplace", "logistic"))
TIMING_FIELDS = ("elapsed_s", "cached")


def texts(results: list) -> list[str]:
    """Each result's JSON without its timing fields."""
    found = [{k: v for k, v in r.to_dict().items() if k not in TIMING_FIELDS} for r in results]
    return [json.dumps(f, sort_keys=True) for f in found]


def timed(compute, work: Path) -> tuple[float, list[str]]:
    """Seconds ``compute(cache)`` takes into an empty cache, and its results' texts."""
    cache = ResultCache(tempfile.mkdtemp(dir=work))
    started = time.perf_counter()
    results = compute(cache)
    return time.perf_counter() - started, texts(results)


def one_grid(configs: list, together_first: bool, work: Path) -> tuple[float, float, bool]:
    """One-by-one and together seconds of ``configs``, and whether their results are equal."""
    ways = {
        "alone": lambda cache: [run(config, cache) for config in configs],
        "together": lambda cache: run_together(configs, cache),
    }
    order = ["together", "alone"] if together_first else ["alone", "together"]
    measured = {way: timed(ways[way], work) for way in order}
    alone, together = measured["alone"], measured["together"]
    return alone[0], together[0], alone[1] == together[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="digits")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    points = len(DEMO_EPSILONS) * len(args.seeds)
    print(
        f"{args.dataset}, {points} points a grid ({len(DEMO_EPSILONS)} epsilons x "
        f"{len(args.seeds)} seeds), {args.epochs} epochs, load {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        warm_up = make_config("rr", args.dataset, 1.0, 0, 1, {"model": "mlp"})
        run_together(
            [warm_up, make_config("rr", args.dataset, 2.0, 0, 1, {"model": "mlp"})],
            ResultCache(work / "warm-up"),
        )
        for index, (mechanism, model) in enumerate(GRIDS):
            configs = [
                make_config(mechanism, args.dataset, epsilon, seed, args.epochs, {"model": model})
                for epsilon in DEMO_EPSILONS
                for seed in args.seeds
            ]
            alone, together, same = one_grid(configs, index % 2 == 1, work)
            print(
                f"{mechanism:>9} {model:>8}: one by one {alone:6.1f} s, together "
                f"{together:6.1f} s, ratio {alone / together:4.2f}x, "
                f"results identical: {'yes' if same else 'NO'}",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
