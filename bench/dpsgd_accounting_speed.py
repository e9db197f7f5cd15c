"""DP-SGD accounting on a page rerun: with the accountants' answers remembered, and without.

Run: ``.venv/bin/python bench/dpsgd_accounting_speed.py``. A view of the DP-SGD page asks the
accounting the same questions on every rerun (a slider moved elsewhere, a chart hovered): the
noise multiplier for its epsilon, that sigma's epsilon by RDP and by PRV, and the budget curve
over the epochs. Calibrations were already remembered (``_calibrated``); since then Opacus's RDP
per step and the PRV epsilon are too (:mod:`labeldp_core.accounting.sampled_gaussian`). In one
run: a cold view, then reruns with those two caches emptied before each (as before) and kept
(as now), best of ``--rounds``, for digits and Fashion-MNIST. Prints seconds and the ratio.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.accounting import sampled_gaussian
from labeldp_core.accounting.dpsgd import (
    calibrate_noise_multiplier,
    dpsgd_epsilon,
    dpsgd_epsilon_curve,
    sampling_schedule,
)

BATCH, EPOCHS, DELTA = 256, 40, 1e-5


def view(epsilon: float, n: int) -> float:
    """The accounting of one view of the page at ``epsilon`` on ``n`` images; its seconds."""
    start = time.perf_counter()
    q, steps = sampling_schedule(n, BATCH, EPOCHS)
    sigma = calibrate_noise_multiplier(epsilon, DELTA, q, steps, "rdp")
    dpsgd_epsilon(sigma, q, steps, DELTA, "rdp")
    dpsgd_epsilon(sigma, q, steps, DELTA, "prv")
    per_epoch = steps // EPOCHS
    dpsgd_epsilon_curve(sigma, q, [per_epoch * e for e in range(1, EPOCHS + 1)], DELTA)
    return time.perf_counter() - start


def forget_answers() -> None:
    sampled_gaussian._rdp_per_step.cache_clear()
    sampled_gaussian._prv_epsilon.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="reruns timed; the fastest kept")
    parser.add_argument("--epsilon", type=float, default=2.0)
    args = parser.parse_args()
    # digits' and Fashion-MNIST's training splits, at the recipe's batch of 256 and 40 epochs
    for name, n in (("digits", 1437), ("fashion-mnist", 60_000)):
        cold = view(args.epsilon, n)
        before = []
        for _ in range(args.rounds):
            forget_answers()
            before.append(view(args.epsilon, n))
        after = [view(args.epsilon, n) for _ in range(args.rounds)]
        print(
            f"{name} (n={n:,}): cold view {cold:.2f} s (calibration included); a rerun "
            f"{min(before):.3f} s recomputing the answers (before), {min(after):.4f} s "
            f"remembering them (now): {min(before) / min(after):,.0f}x"
        )


if __name__ == "__main__":
    main()
