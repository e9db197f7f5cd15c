"""A synthetic table with many classes, to compare vector randomized response with RR as K grows.

Run: ``.venv/bin/python bench/many_classes_table.py [--classes 100] [--rows 30000] [--out PATH]``
writes a CSV (``x0``..``x{d-1}`` numeric features, a ``label`` column ``c000``..``c099``) and
prints the commands that measure both mechanisms on it, for example::

    .venv/bin/python -m labeldp_core sweep vector-rr --dataset file:/tmp/many-classes.csv
        --label label --classes c000,...,c099 --epsilons 1 2 4 8 --csv vector-rr.csv

With ``--run E [E ...]`` it also runs both sweeps at those epsilons (seed 0, the table defaults:
the MLP) in this process and prints a markdown table of their test accuracies.

The data: each class has a mean drawn from a standard normal in ``--dims`` dimensions; a row is
its class's mean plus Gaussian noise of standard deviation ``--spread``, and the classes are
equally likely. The class list is passed as public (``--classes``), so which classes occur is
not read from the private column. Zhao et al. (ICLR 2025) predict that RR degrades quickly with
K (its signal (e^ε − 1)/(e^ε + K − 1) shrinks like 1/K) while vector RR does not (tanh(ε/4)).
"""

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MECHANISMS = ("vector-rr", "rr")


def write_table(path: Path, classes: int, rows: int, dims: int, spread: float) -> list[str]:
    """Write the CSV; return the class names (public, in order)."""
    rng = np.random.default_rng(0)
    means = rng.normal(size=(classes, dims))
    labels = rng.integers(0, classes, rows)
    features = means[labels] + spread * rng.normal(size=(rows, dims))
    names = [f"c{k:03d}" for k in range(classes)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*(f"x{i}" for i in range(dims)), "label"])
        for row, label in zip(features.round(4), labels, strict=True):
            writer.writerow([*row.tolist(), names[label]])
    return names


def commands(path: Path, names: list[str], epsilons: list[float]) -> list[str]:
    """The command lines that measure each mechanism on the table."""
    grid = " ".join(f"{e:g}" for e in epsilons)
    return [
        f".venv/bin/python -m labeldp_core sweep {mechanism} --dataset file:{path} --label label "
        f"--classes {','.join(names)} --epsilons {grid} --csv {mechanism}-many.csv"
        for mechanism in MECHANISMS
    ]


def measure(path: Path, names: list[str], epsilons: list[float], seed: int) -> None:
    """Run both mechanisms at ``epsilons`` and print their test accuracies as a markdown table."""
    from labeldp_core.data.tables import add_table
    from labeldp_core.experiments import make_config, run

    dataset = add_table(path.read_bytes(), "label", path.name, classes=names).id
    scores: dict[str, dict[float, float]] = {}
    baseline = None
    for mechanism in MECHANISMS:
        for epsilon in epsilons:
            result = run(make_config(mechanism, dataset, epsilon, seed))
            scores.setdefault(mechanism, {})[epsilon] = result.test_accuracy
            baseline = result.baseline_test_accuracy
            print(f"{mechanism} eps={epsilon:g}: {result.test_accuracy:.4f}", flush=True)
    print(f"\nK = {len(names)}, clean {baseline:.4f}, chance {1 / len(names):.4f}, seed {seed}\n")
    print("| ε | " + " | ".join(MECHANISMS) + " |")
    print("|---|" + "---|" * len(MECHANISMS))
    for epsilon in epsilons:
        cells = " | ".join(f"{scores[m][epsilon]:.3f}" for m in MECHANISMS)
        print(f"| {epsilon:g} | {cells} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--dims", type=int, default=30)
    parser.add_argument("--spread", type=float, default=1.2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/many-classes.csv"))
    parser.add_argument("--run", type=float, nargs="*", metavar="E", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = write_table(args.out, args.classes, args.rows, args.dims, args.spread)
    print(f"wrote {args.out}: {args.rows} rows, {args.dims} features, {args.classes} classes")
    for line in commands(args.out, names, args.run or [1, 2, 4, 8]):
        print(line)
    if args.run:
        measure(args.out, names, args.run, args.seed)


if __name__ == "__main__":
    main()
