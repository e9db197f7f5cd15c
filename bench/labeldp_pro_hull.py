"""LabelDP-Pro's denoising step on logistic regression: the closed form against ``torch.func``.

Run: ``.venv/bin/python bench/labeldp_pro_hull.py [--rounds 7]``.

A LabelDP-Pro step projects the noisy gradient onto the hull of the public batch's clipped
per-class gradients (:func:`labeldp_core.families.labeldp_pro.denoiser.denoise`: the column
norms, then 8 power iterations and 20 projection steps, each a ``G w`` and a ``G^T v``). For
logistic regression, the model of its digits and Fashion-MNIST recipes, those products have a
closed form (:mod:`labeldp_core.families.labeldp_pro.linear_hull`); any other network takes
``torch.func``'s Jacobian products (``network_hull_map``). This times one whole denoising step
both ways on one torch thread, in alternating rounds (CPU seconds of this thread, median), on
the recipes' shapes (public batch 100, 10 classes): digits' 64 pixels and Fashion-MNIST's 128
patch components; and checks that the two steps agree to float precision.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.families.labeldp_pro import denoiser
from labeldp_core.models.zoo import build_model

#: (name, flattened inputs) of the recipes' logistic models.
SHAPES = (("digits pixels", 64), ("Fashion-MNIST patch components", 128))
PUBLIC_BATCH, CLASSES, CLIP, SMOOTHING, STEPS = 100, 10, 0.1, 0.5, 20


def _step(model, images, noisy, generic: bool) -> tuple[float, torch.Tensor]:
    """One denoising step's CPU seconds and result, by the closed form or ``torch.func``."""
    forced = denoiser.network_hull_map if generic else denoiser.hull_map
    with mock.patch.object(denoiser, "hull_map", forced):
        start = time.thread_time()
        step, _ = denoiser.denoise(noisy, model, images, CLIP, SMOOTHING, STEPS, start="predicted")
        return time.thread_time() - start, step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name, inputs in SHAPES:
        torch.manual_seed(0)
        model = build_model("logistic", (inputs, 1, 1), CLASSES)
        images = torch.randn(PUBLIC_BATCH, inputs, 1, 1)
        noisy = torch.randn(inputs * CLASSES + CLASSES)
        times: dict[bool, list[float]] = {False: [], True: []}
        for index in range(args.rounds * 2):
            generic = bool(index % 2) ^ bool(index // 2 % 2)  # ABBA order
            seconds, _ = _step(model, images, noisy, generic)
            times[generic].append(seconds)
        closed, transforms = (statistics.median(times[g]) for g in (False, True))
        gap = float(
            (_step(model, images, noisy, False)[1] - _step(model, images, noisy, True)[1])
            .abs()
            .max()
        )
        print(
            f"{name} ({inputs} inputs, {CLASSES} classes, public batch {PUBLIC_BATCH}): "
            f"torch.func {transforms * 1e3:.1f} ms, closed form {closed * 1e3:.1f} ms a step, "
            f"{transforms / closed:.1f}x; largest difference in the step {gap:.1e}"
        )


if __name__ == "__main__":
    main()
