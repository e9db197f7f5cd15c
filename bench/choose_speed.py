"""`choose` on a warmed cache: how long the command takes, and where the time goes.

Run: ``.venv/bin/python bench/choose_speed.py [--dataset NAME] [--target A] [--runs N]`` on the
cache ``LABELDP_CACHE_DIR`` names (warm it first: ``python -m labeldp_core warm``). It prints

1. the wall time of ``python -m labeldp_core choose --dataset NAME --target-accuracy A``, a new
   process each time, as a user runs it (target of issue 38: under a second), the best of N;
2. inside one process: the imports, the first ``choose_epsilon`` (configs made and checked,
   every cached run read) and a second target on the same process (the curves read again);
3. how many answers reached the target, so a cold cache does not pass for a fast one.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def command_seconds(dataset: str, target: float, runs: int) -> list[float]:
    """Wall seconds of each of ``runs`` runs of the command, a new process each."""
    command = [
        sys.executable,
        "-m",
        "labeldp_core",
        "choose",
        "--dataset",
        dataset,
        "--target-accuracy",
        str(target),
    ]
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        seconds.append(time.perf_counter() - started)
    return seconds


def in_process(dataset: str, target: float) -> tuple[float, float, float, int]:
    """Seconds of the imports, the first answer and a second target's; answers reaching it."""
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    from labeldp_core.choosing import make_target
    from labeldp_core.choosing.choice import choose_epsilon

    imported = time.perf_counter()
    choice = choose_epsilon(dataset, make_target("accuracy", target))
    first = time.perf_counter()
    choose_epsilon(dataset, make_target("accuracy", target * 0.95))
    second = time.perf_counter()
    return imported - started, first - imported, second - first, len(choice.reached)


def main() -> None:
    """Print the command's wall times and the in-process split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="digits")
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    seconds = command_seconds(args.dataset, args.target, args.runs)
    print(
        f"choose (new process): best {min(seconds):.2f} s, all "
        f"{', '.join(f'{s:.2f}' for s in seconds)} s"
    )
    imports, first, second, reached = in_process(args.dataset, args.target)
    print(
        f"in one process: imports {imports:.2f} s, first answer {first:.2f} s, another "
        f"target {second:.2f} s; {reached} mechanisms reach {args.target:g}"
    )


if __name__ == "__main__":
    main()
