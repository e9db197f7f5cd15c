"""How many epochs the digits CNN needs: its accuracy per epoch on a fifth of the training split.

Run: ``.venv/bin/python bench/digits_epochs.py [--epsilons inf,8,4,2,1,0.5] [--seeds 0,1,2]
[--learning-rates 0.002,0.004]``.

A warm of digits trains every point for the dataset's default epochs (40), and the training is
most of a point's seconds, so fewer epochs would make the warm shorter in proportion; but a
recipe change changes every stored result. This measures what it would cost in accuracy,
without reading the test split: the CNN trains on four fifths of the training split (labels
released by K-ary randomized response at each ε, ``inf`` for the clean labels) and is scored on
the other fifth after every epoch. It prints each run's accuracy at a few epoch counts (a run
of E epochs is the first E epochs of this one: the same seed, the same batches). With
``--learning-rates`` it does so for each rate (the recipe's is 0.002): does a larger step make
up in fewer epochs what the recipe reaches in 40?
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


def curve(epsilon: float, seed: int, learning_rate: float = 2e-3) -> tuple[float, ...]:
    """Held-out accuracy after each of 40 epochs at ``epsilon`` (inf: clean labels)."""
    data = load_dataset("digits")
    order = np.random.default_rng(SPLIT_SEED).permutation(len(data.y_train))
    cut = int(0.8 * len(order))
    train, held = order[:cut], order[cut:]
    labels = data.y_train[train]
    if np.isfinite(epsilon):
        rng = np.random.default_rng(seed + 1000)
        labels = randomized_response(labels, epsilon, data.num_classes, rng)
    settings = TrainSettings(
        model="cnn", epochs=max(SHOWN), batch_size=128, learning_rate=learning_rate
    )
    x, y = data.x_train, data.y_train
    outcome = train_classifier(x[train], labels, x[held], y[held], data.num_classes, settings, seed)
    return outcome.test_curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="inf,8,4,2,1,0.5")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--learning-rates", default="0.002")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    for rate in (float(r) for r in args.learning_rates.split(",")):
        print(f"learning rate {rate:g}\nepsilon  " + "  ".join(f"{e:>5d}" for e in SHOWN))
        for epsilon in (float(e) for e in args.epsilons.split(",")):
            means = np.array([curve(epsilon, seed, rate) for seed in seeds]).mean(axis=0)
            print(f"{epsilon:>7g}  " + "  ".join(f"{means[e - 1]:.3f}" for e in SHOWN), flush=True)


if __name__ == "__main__":
    main()
