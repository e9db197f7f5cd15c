"""DP-SGD speed: one private epoch vs one non-private epoch of the same model, side by side.

Run: ``.venv/bin/python bench/dpsgd_speed.py`` (``--modes`` also times every clipping mode of
:mod:`labeldp_core.training.dpsgd`; ``--rounds N`` repeats each measurement and keeps the
fastest, which is the least disturbed by other work on a shared machine).

Both loops train the project's CNN on in-memory tensors in channels_last layout with the same
expected batch size; the private one Poisson-samples, clips each example's gradient (by default
Opacus's ghost norms with book-keeping), adds noise and accounts. Prints seconds per epoch and
the ratio (target: at most 2.5x).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.data import is_available, load_dataset
from labeldp_core.training import TrainSettings, train_classifier
from labeldp_core.training.dpsgd import (
    GRAD_SAMPLE_MODES,
    DPSGDSettings,
    train_dpsgd_classifier,
)


def non_private_epoch(data, settings: TrainSettings) -> float:
    start = time.perf_counter()
    # A handful of test images keeps the per-epoch evaluation out of the measurement.
    train_classifier(data.x_train, data.y_train, data.x_test[:8], data.y_test[:8], 10, settings, 0)
    return time.perf_counter() - start


def private_epoch(data, settings: TrainSettings, mode: str) -> float:
    privacy = DPSGDSettings(noise_multiplier=1.0, clip=1.0, grad_sample_mode=mode)
    start = time.perf_counter()
    train_dpsgd_classifier(
        data.x_train, data.y_train, data.x_test[:8], data.y_test[:8], 10, settings, privacy, 0
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", action="store_true", help="time every clipping mode")
    parser.add_argument("--rounds", type=int, default=2, help="repeats; the fastest is kept")
    parser.add_argument("--batch", type=int, default=256, help="expected batch size")
    parser.add_argument("--dataset", default=None, help="default: fashion-mnist if present")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="Full backward hook is firing")

    dataset = args.dataset or ("fashion-mnist" if is_available("fashion-mnist") else "mnist-5k")
    data = load_dataset(dataset)
    settings = TrainSettings(model="cnn", epochs=1, batch_size=args.batch)
    default_mode = DPSGDSettings(1.0).grad_sample_mode
    modes = GRAD_SAMPLE_MODES if args.modes else (default_mode,)
    print(
        f"dataset {dataset}: {data.n_train} training images, CNN, channels_last, "
        f"expected batch {args.batch}, torch threads {torch.get_num_threads()}"
    )

    non_private_epoch(data, settings)  # warm-up: first calls pay for oneDNN's kernel selection
    best: dict[str, float] = {}
    for _ in range(args.rounds):  # interleaved, so a busy spell hurts every loop alike
        best["non-private"] = min(
            best.get("non-private", float("inf")), non_private_epoch(data, settings)
        )
        for mode in modes:
            best[mode] = min(best.get(mode, float("inf")), private_epoch(data, settings, mode))

    reference = best["non-private"]
    print(f"{'non-private loop':<44} {reference:7.2f} s/epoch")
    for mode in modes:
        marker = " (default)" if mode == default_mode else ""
        print(
            f"{'DP-SGD, grad_sample_mode=' + mode + marker:<44} {best[mode]:7.2f} s/epoch  "
            f"{best[mode] / reference:5.2f}x the non-private epoch"
        )
    print(f"DP-SGD / non-private epoch: {best[default_mode] / reference:.2f}x (target <= 2.5x)")


if __name__ == "__main__":
    main()
