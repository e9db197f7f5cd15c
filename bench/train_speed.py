"""Training speed: the project's in-memory loop vs a naive DataLoader loop, against matmul peak.

Run: ``.venv/bin/python bench/train_speed.py`` (``--quick`` skips the memory measurement).
Prints examples/s, achieved GFLOP/s (a training step counted as 3x the forward pass's
2 x multiply-adds), the ratio to this machine's float32 matmul rate measured in the same run,
the speedup over the naive loop, and the peak resident memory of a 5-epsilon RR sweep.
The project's loop trains with the batch size and learning rate that ``run`` uses on the
dataset (batch 256 on Fashion-MNIST, see ``labeldp_core/data/registry.py``).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional
from torch.utils.data import DataLoader, TensorDataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.data import is_available, load_dataset
from labeldp_core.experiments import make_config
from labeldp_core.models import build_model
from labeldp_core.training import TrainSettings, train_classifier


def matmul_gflops(size: int = 2048, repeats: int = 20) -> float:
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * size**3 * repeats / (time.perf_counter() - start) / 1e9


def forward_macs(model: nn.Module, image_shape: tuple[int, int, int]) -> int:
    """Multiply-adds of one example's forward pass through the conv and linear layers."""
    total = 0

    def count(module: nn.Module, _inputs: tuple, output: torch.Tensor) -> None:
        nonlocal total
        if isinstance(module, nn.Conv2d):
            per_output = (
                module.in_channels // module.groups * module.kernel_size[0] * module.kernel_size[1]
            )
            total += output.numel() * per_output
        elif isinstance(module, nn.Linear):
            total += module.in_features * module.out_features

    hooks = [
        m.register_forward_hook(count)
        for m in model.modules()
        if isinstance(m, nn.Conv2d | nn.Linear)
    ]
    with torch.no_grad():
        model(torch.zeros(1, *image_shape))
    for hook in hooks:
        hook.remove()
    return total


def naive_epoch(dataset: str) -> float:
    """One epoch the textbook way: DataLoader, batch 64, default (NCHW) memory layout.

    Timed in a fresh process of its own, so it runs with glibc's default allocator settings
    rather than the ones the project's loop sets for its whole process.
    """
    result = subprocess.run(  # inherits LABELDP_OFFLINE from local_dataset()
        [sys.executable, __file__, "--naive-epoch", dataset],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(result.stdout.split()[-1])


def _naive_epoch_here(dataset: str) -> float:
    data = load_dataset(dataset)
    x, y = torch.tensor(data.x_train), torch.tensor(data.y_train)
    image_shape = data.image_shape
    torch.manual_seed(0)
    model = build_model("cnn", image_shape, 10)
    optimiser = torch.optim.Adam(model.parameters(), lr=2e-3)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    for images, _labels in zip(loader, range(5), strict=False):  # oneDNN's first-call set-up
        model(images[0])
    start = time.perf_counter()
    for images, labels in loader:
        optimiser.zero_grad()
        functional.cross_entropy(model(images), labels).backward()
        optimiser.step()
    return time.perf_counter() - start


def project_epoch(data, settings: TrainSettings) -> float:
    start = time.perf_counter()
    # A handful of test images keeps the per-epoch evaluation out of the measurement.
    train_classifier(data.x_train, data.y_train, data.x_test[:8], data.y_test[:8], 10, settings, 0)
    return time.perf_counter() - start


def run_settings(dataset: str) -> TrainSettings:
    """One epoch of the CNN with the batch size and learning rate a run on ``dataset`` uses."""
    config = make_config("rr", dataset, 1.0, epochs=1)
    return TrainSettings(
        model="cnn",
        epochs=1,
        batch_size=config.setting("batch_size"),
        learning_rate=config.setting("learning_rate"),
    )


def sweep_peak_rss_gib(dataset: str) -> float:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, LABELDP_CACHE_DIR=cache)
        sweep = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "labeldp_core",
                "sweep",
                "rr",
                "--dataset",
                dataset,
                "--epsilons",
                "0.5",
                "1",
                "2",
                "4",
                "8",
                "--epochs",
                "2",
            ],
            env=env,
            cwd=Path(__file__).resolve().parents[1],
            stdout=subprocess.DEVNULL,
        )
        _pid, status, usage = os.wait4(sweep.pid, 0)  # this child's own usage, not all children's
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the sweep failed with exit status {os.waitstatus_to_exitcode(status)}")
    return usage.ru_maxrss / 2**20


def local_dataset() -> str:
    """Fashion-MNIST if its files are on this machine, else the bundled mnist-5k; never downloads.

    Offline is set for the whole run, so the sweep's subprocess inherits it too.
    """
    os.environ["LABELDP_OFFLINE"] = "1"
    if is_available("fashion-mnist"):
        return "fashion-mnist"
    print("fashion-mnist is not on this machine (`make data` installs it); timing mnist-5k instead")
    return "mnist-5k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the sweep memory measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repeats; best kept")
    parser.add_argument("--naive-epoch", metavar="DATASET", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.naive_epoch:  # the child process of naive_epoch()
        print(_naive_epoch_here(args.naive_epoch))
        return

    dataset = local_dataset()
    data = load_dataset(dataset)
    settings = run_settings(dataset)
    image_shape = data.image_shape
    flops_per_example = 3 * 2 * forward_macs(build_model("cnn", image_shape, 10), image_shape)
    threads = torch.get_num_threads()
    print(f"dataset {dataset}: {data.n_train} training images, torch threads {threads}")
    print(f"CNN training step: {flops_per_example / 1e6:.2f} MFLOP per example (3 x 2 x MACs)")

    project_epoch(data, settings)  # warm-up: first calls pay for oneDNN's kernel selection
    peak, ours, naive = 0.0, float("inf"), float("inf")
    for _ in range(args.rounds):  # interleaved, so a busy spell on a shared host hurts all alike
        peak = max(peak, matmul_gflops())
        ours = min(ours, project_epoch(data, settings))
        naive = min(naive, naive_epoch(dataset))

    loops = (
        (f"project loop (batch {settings.batch_size}, channels_last)", ours),
        ("naive loop (DataLoader, batch 64, NCHW)", naive),
    )
    for name, seconds in loops:
        rate = data.n_train / seconds
        gflops = rate * flops_per_example / 1e9
        print(
            f"{name:<42} {seconds:6.2f} s/epoch  {rate:9.0f} examples/s  "
            f"{gflops:6.1f} GFLOP/s  {100 * gflops / peak:5.1f}% of matmul"
        )
    print(f"float32 matmul 2048x2048: {peak:.1f} GFLOP/s")
    print(f"speedup over the naive loop: {naive / ours:.2f}x (target >= 2.5x)")
    share = 100 * data.n_train / ours * flops_per_example / 1e9 / peak
    print(f"share of matmul rate: {share:.1f}% (target >= 45%)")
    if not args.quick:
        print(
            f"peak resident memory of a 5-epsilon RR sweep on {dataset}: "
            f"{sweep_peak_rss_gib(dataset):.2f} GiB (target < 3 GiB)"
        )


if __name__ == "__main__":
    main()
