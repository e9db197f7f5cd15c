"""How many epochs the digits CNN needs: its accuracy per epoch on a fifth of the training split.

Run: ``.venv/bin/python bench/digits_epochs.py [--epsilons inf,8,4,2,1,0.5] [--seeds 0,1,2]``.

A warm of digits trains every point for the dataset's default epochs (40), and the training is
most of a point's seconds, so fewer epochs would make the warm shorter in proportion; but a
recipe change changes every stored result. This measures what it would cost in accuracy,
without reading the test split: the CNN trains on four fifths of the training split (labels
released by K-ary randomized response at each ε, ``inf`` for the clean labels) and is scored on
the other fifth after every epoch. It prints each run's accuracy at a few epoch counts (a run
of E epochs is the first E epochs of this one: the same seed, the same batches).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.data import load_dataset
from labeldp_core.noise.randomized_response import randomized_response
from labeldp_core.training import TrainSettings, train_classifier

#: The epoch counts printed; the default recipe's 40 last.
SHOWN = (10, 15, 20, 25, 30, 40)
#: The seed of the held-out fifth (one split for every run).
SPLIT_SEED = 12345


def curve(epsilon: float, seed: int) -> tuple[float, ...]:
    """Held-out accuracy after each of 40 epochs at ``epsilon`` (inf: clean labels)."""
    data = load_dataset("digits")
    order = np.random.default_rng(SPLIT_SEED).permutation(len(data.y_train))
    cut = int(0.8 * len(order))
    train, held = order[:cut], order[cut:]
    labels = data.y_train[train]
    if np.isfinite(epsilon):
        rng = np.random.default_rng(seed + 1000)
        labels = randomized_response(labels, epsilon, data.num_classes, rng)
    settings = TrainSettings(model="cnn", epochs=max(SHOWN), batch_size=128, learning_rate=2e-3)
    x, y = data.x_train, data.y_train
    outcome = train_classifier(x[train], labels, x[held], y[held], data.num_classes, settings, seed)
    return outcome.test_curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="inf,8,4,2,1,0.5")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print("epsilon  " + "  ".join(f"{e:>5d}" for e in SHOWN) + "   (mean over seeds)")
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        curves = np.array([curve(epsilon, seed) for seed in seeds])
        means = curves.mean(axis=0)
        print(f"{epsilon:>7g}  " + "  ".join(f"{means[e - 1]:.3f}" for e in SHOWN), flush=True)


if __name__ == "__main__":
    main()
