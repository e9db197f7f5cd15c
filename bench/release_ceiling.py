"""What the canary audit proves of a model that memorises each canary's released target perfectly.

No training: each canary's planted label goes through the mechanism's own release function
(seeded), and the audit's own guesses (:func:`~labeldp_core.model_audit.guesses.guess`: the
smoothed two-candidate score, abstention on the least confident) and one-run bound
(:func:`~labeldp_core.model_audit.estimate.score_guesses`) read the released targets as if they
were the model's output. The median over seeds is the most a model trained on the release can
be expected to show this audit: where it is at most a claim at twice the claim's ε, the 2x
control's miss is the release's (no model could do better), else the model's (issue 54).

Run::

    .venv/bin/python bench/release_ceiling.py --shares 0.5 0.25
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.families.laplace_labels.alibi_release import alibi_posterior
from labeldp_core.families.laplace_labels.release import laplace_one_hot, post_process
from labeldp_core.families.vector_rr.release import vector_randomized_response
from labeldp_core.model_audit import draw_canaries, score_guesses
from labeldp_core.model_audit.guesses import guess
from labeldp_core.noise.randomized_response import randomized_response

Release = Callable[[np.ndarray, float, int, np.random.Generator], np.ndarray]


def _one_hot(labels: np.ndarray, classes: int) -> np.ndarray:
    return np.eye(classes)[labels]


#: What each mechanism trains its model on, for the canaries' planted labels: (n, K) targets.
RELEASES: dict[str, Release] = {
    "rr": lambda y, e, k, rng: _one_hot(randomized_response(y, e, k, rng), k),
    "laplace": lambda y, e, k, rng: _one_hot(
        post_process(laplace_one_hot(y, e, k, rng), "argmax"), k
    ),
    "laplace-soft": lambda y, e, k, rng: post_process(laplace_one_hot(y, e, k, rng), "soft"),
    "alibi": lambda y, e, k, rng: alibi_posterior(laplace_one_hot(y, e, k, rng), e),
    "vector-rr": lambda y, e, k, rng: vector_randomized_response(y, e, k, rng).astype(float),
}


def release_ceiling(
    mechanism: str, epsilon: float, share: float, canaries: int = 1000, seeds: int = 20
) -> list[float]:
    """The audit's ε̂ on ``canaries`` canaries' released targets, one per seed (ten classes)."""
    classes = 10
    labels = np.random.default_rng(54).integers(0, classes, 60_000)
    bounds = []
    for seed in range(seeds):
        drawn = draw_canaries(labels, classes, canaries, seed)
        targets = RELEASES[mechanism](
            drawn.planted, epsilon, classes, np.random.default_rng([seed, 54])
        )
        made = guess(targets, drawn.planted, drawn.decoy, share)
        bounds.append(score_guesses(made.correct, made.made, canaries=canaries).epsilon_lower_bound)
    return bounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mechanisms", nargs="+", default=list(RELEASES))
    parser.add_argument("--epsilons", nargs="+", type=float, default=[1.0, 2.0, 4.0])
    parser.add_argument("--shares", nargs="+", type=float, default=[0.5])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    print("| mechanism | guess share | " + " | ".join(f"ε {e:g}" for e in args.epsilons) + " |")
    print("| --- | --- |" + " --- |" * len(args.epsilons))
    for share in args.shares:
        for mechanism in args.mechanisms:
            cells = []
            for epsilon in args.epsilons:
                bounds = release_ceiling(mechanism, epsilon, share, seeds=args.seeds)
                cells.append(f"{np.median(bounds):.2f} [{min(bounds):.2f}, {max(bounds):.2f}]")
            print(f"| {mechanism} | {share:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
