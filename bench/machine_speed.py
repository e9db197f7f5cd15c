"""A yardstick: how fast this machine runs a fixed piece of the suite's and the warm's work now.

The machines are shared: the same code on the same 2 cores took 508 s of pytest at 03:00 and
717 s at 05:35 the same day, at similar load averages (issue 52), because every test's own CPU
time had grown by about 40% (another tenant on the host's cores; the guest's steal counter
barely moved); within the next hour this yardstick went from 1.24-1.74 s to 1.01 s. A time
measured without the machine's speed beside it cannot be compared with another.
This times two fixed workloads, each the best of ``--repeats`` runs on one thread:

- ``cnn``: 300 Adam steps of digits' CNN on a batch of 128 random 8x8 images, what a warm's point
  on digits mostly is (a point trains 25 epochs of about 12 such steps);
- ``python``: pure-Python work of the kind the app's tests and the cache do (JSON round trips of
  a run-sized record, sorting, string building).

``bench/warm_speed.py --write`` and ``tests/durations_report.py`` record it beside their figures
(torch loads only when :func:`measure` runs, so that rendering a record stays light).

Run: ``.venv/bin/python bench/machine_speed.py [--repeats N] [--json]``.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from measured import yardstick_text

__all__ = ["measure", "processor"]

#: The CNN workload: steps, batch size and digits' image shape.
_STEPS, _BATCH, _SHAPE = 300, 128, (1, 8, 8)


def _cnn_steps() -> None:
    """300 training steps of digits' CNN on random images (seeded: the same work every time)."""
    import torch
    from torch.nn import functional

    from labeldp_core.models import build_model

    torch.manual_seed(0)
    model = build_model("cnn", _SHAPE, 10).to(memory_format=torch.channels_last)
    optimiser = torch.optim.Adam(model.parameters(), lr=4e-3)
    x = torch.randn(_BATCH, *_SHAPE).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (_BATCH,))
    for _ in range(_STEPS):
        optimiser.zero_grad(set_to_none=True)
        functional.cross_entropy(model(x), y).backward()
        optimiser.step()


def _python_work() -> None:
    """JSON round trips, sorts and string building on run-sized records."""
    record = {"curve": [i / 7 for i in range(200)], "settings": {f"k{i}": i for i in range(40)}}
    for i in range(2_000):
        text = json.dumps(record, sort_keys=True)
        again = json.loads(text)
        sorted(again["settings"].items(), key=lambda kv: (-kv[1], kv[0]))
        "".join(f"{value:.4g}," for value in again["curve"][: 20 + i % 50])


def _best(work, repeats: int) -> dict[str, float]:
    """The best CPU and wall seconds of ``repeats`` runs of ``work``, after one untimed run.

    The untimed run takes what happens once per process (torch's optimiser imports
    ``torch._dynamo`` on its first use: 1.8 to 2.1 s here), which no repeat pays again.
    """
    work()
    cpu, wall = [], []
    for _ in range(repeats):
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        work()
        cpu.append(time.process_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
    return {"cpu": round(min(cpu), 3), "wall": round(min(wall), 3)}


def processor() -> str:
    """The CPU's model name and the vector instructions torch uses on it, e.g. ``AMD EPYC, AVX2``.

    Machines of one kind differ: on an AVX2 EPYC a warm of digits took a quarter longer than on
    the machine of the record before, at about the same yardstick (2026-11-30).
    """
    import torch

    info = Path("/proc/cpuinfo")
    lines = info.read_text(encoding="utf-8").splitlines() if info.exists() else []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return f"{names[0] if names else 'unknown CPU'}, {torch.backends.cpu.get_cpu_capability()}"


def measure(repeats: int = 3) -> dict[str, dict[str, float]]:
    """Each workload's best CPU and wall seconds on one thread, ``repeats`` runs each."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return {"cnn": _best(_cnn_steps, repeats), "python": _best(_python_work, repeats)}
    finally:
        torch.set_num_threads(threads)


def main() -> None:
    """Measure and print the yardstick."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each workload (best kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    speed = measure(args.repeats)
    chip = processor()
    print(
        json.dumps(speed | {"processor": chip}) if args.json else f"{yardstick_text(speed)}, {chip}"
    )


if __name__ == "__main__":
    main()
