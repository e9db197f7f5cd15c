"""Adam's fused kernel called directly (FusedAdam) against ``torch.optim.Adam(fused=True)``.

Run: ``.venv/bin/python bench/optimiser_speed.py [--rounds N] [--steps N]``. On one thread, for
each small model on digits-shaped batches of 128 (the warm's training), the two optimisers'
training steps are timed in alternated rounds (the parameters checked equal after each pair),
and the median seconds a step and their ratio printed; then, in fresh processes, what a
process's first ``torch.optim.Adam`` costs (it imports ``torch._dynamo``) against the first
FusedAdam.
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
from torch.nn import functional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.models import build_model
from labeldp_core.training.fused_adam import FusedAdam

_FIRST = """
import time, torch
model = torch.nn.Linear(64, 10)
started = time.perf_counter()
{make}
print(time.perf_counter() - started)
"""
_MAKERS = {
    "torch.optim.Adam": "torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)",
    "FusedAdam": (
        "from labeldp_core.training.fused_adam import FusedAdam\n"
        "FusedAdam(model.parameters(), 1e-3)"
    ),
}


def _steps(model_name: str, own: bool, steps: int) -> tuple[float, list[torch.Tensor]]:
    """Seconds a step of ``steps`` on one batch, and the parameters after them."""
    torch.manual_seed(0)
    layout = torch.channels_last if model_name.startswith("cnn") else torch.contiguous_format
    model = build_model(model_name, (1, 8, 8), 10).to(memory_format=layout)
    x = torch.randn(128, 1, 8, 8).contiguous(memory_format=layout)
    y = torch.randint(0, 10, (128,))
    if own:
        optimiser = FusedAdam(model.parameters(), 4e-3)
    else:
        optimiser = torch.optim.Adam(model.parameters(), lr=4e-3, fused=True)
    started = time.perf_counter()
    for _ in range(steps):
        optimiser.zero_grad(set_to_none=True)
        functional.cross_entropy(model(x), y).backward()
        optimiser.step()
    return (time.perf_counter() - started) / steps, [p.detach() for p in model.parameters()]


def compare_steps(rounds: int, steps: int) -> None:
    """Alternated rounds of each model's steps with either optimiser; medians and ratio."""
    torch.set_num_threads(1)
    for model_name in ("cnn", "mlp", "logistic"):
        _steps(model_name, False, 5)  # the first torch optimiser's imports, outside the timing
        times = {True: [], False: []}
        for _ in range(rounds):
            own_seconds, own_params = _steps(model_name, True, steps)
            torch_seconds, torch_params = _steps(model_name, False, steps)
            assert all(map(torch.equal, own_params, torch_params)), "the parameters differ"
            times[True].append(own_seconds)
            times[False].append(torch_seconds)
        own, theirs = statistics.median(times[True]), statistics.median(times[False])
        print(
            f"{model_name:9s} a step: FusedAdam {1000 * own:.3f} ms, torch.optim.Adam "
            f"{1000 * theirs:.3f} ms (medians of {rounds} alternated rounds of {steps} steps): "
            f"{theirs / own:.2f}x, parameters equal"
        )


def first_optimiser(repeats: int = 3) -> None:
    """Seconds of a fresh process's first optimiser, each kind, best of ``repeats``."""
    root = str(Path(__file__).resolve().parents[1])
    for name, make in _MAKERS.items():
        seconds = [
            float(
                subprocess.run(
                    [sys.executable, "-c", _FIRST.format(make=make)],
                    cwd=root,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(repeats)
        ]
        print(f"a process's first {name}: {min(seconds):.2f} s (best of {repeats})")


def main() -> None:
    """Time the steps, then the first optimiser of a process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternated rounds per model")
    parser.add_argument("--steps", type=int, default=300, help="training steps per round")
    args = parser.parse_args()
    compare_steps(args.rounds, args.steps)
    first_optimiser()


if __name__ == "__main__":
    main()
