"""The trained-model canary audit's grid: each mechanism's ε̂ and its controls at each ε.

Run (one training at a time, on one thread; hours of CPU on Fashion-MNIST)::

    OMP_NUM_THREADS=1 LABELDP_TORCH_THREADS=1 .venv/bin/python bench/model_audit_grid.py \
        --out /tmp/grid.jsonl
    .venv/bin/python bench/model_audit_grid.py --out /tmp/grid.jsonl --table

Each point is ``audit MECH --model --dataset D --epsilon E --seed S`` with the audit's defaults
(recipe, canaries, kind, guess share), computed through the result cache and appended to ``--out``
as one JSON line as soon as it finishes, with the CPU seconds of the trainings it added (a training
the cache already holds, such as the 2x control at ε that is the mechanism's run at 2ε, costs
nothing again) and the machine's load. ``--table`` prints the lines as a Markdown table.
The ε are visited in the order given, each over every mechanism, so that the claims of 1 and 2
come first. ``--seed`` draws other canaries (and other noise): a recipe chosen by comparing
audits on one seed's canaries is confirmed on another's. ``--learning-rate`` replaces the
recipe's. A point the audit refuses before training (no canary design can test the claim) is a
line with its reason.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeldp_core.model_audit import UntestableClaimError, audit_model

MECHANISMS = ("rr", "rr-prior", "alibi", "laplace", "vector-rr")
EPSILONS = (1.0, 2.0, 4.0, 0.5, 8.0)


def _point(mechanism: str, dataset: str, epsilon: float, seed: int, settings: dict) -> dict:
    """One audit with its cost: CPU and wall seconds, and the 1-minute load when it ended."""
    cpu, wall = time.process_time(), time.perf_counter()
    asked = {"mechanism": mechanism, "epsilon": epsilon, "seed": seed}
    try:
        audit = audit_model(mechanism, dataset, epsilon, seed=seed, settings=settings or None)
    except UntestableClaimError as refused:
        return asked | {"refused": refused.report["verdict"]}
    report = audit.to_dict()
    return asked | {
        "learning_rate": audit.learning_rate,
        "model": audit.model,
        "epochs": audit.epochs,
        "canaries": audit.canaries,
        "label_epsilon": audit.label_epsilon,
        "epsilon_hat": audit.audited.epsilon_lower_bound,
        "violates": audit.violates,
        "power": report["power"],
        "caught": {c.role: c.caught for c in audit.controls},
        "verdict": audit.verdict,
        "cpu_s": round(time.process_time() - cpu, 1),
        "wall_s": round(time.perf_counter() - wall, 1),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def _table(lines: list[dict]) -> str:
    """The points as a Markdown table, in the order they were computed.

    A seed column appears when the points span several seeds, and a "claim tested" column when
    an audit held a model to a tighter claim than its run's (Laplace's argmax labels).
    """
    seeds = len({p.get("seed", 0) for p in lines}) > 1
    tightened = any(p.get("label_epsilon", p["epsilon"]) != p["epsilon"] for p in lines)
    extra = (["seed"] if seeds else []) + (["claim tested"] if tightened else [])
    heads = ["mechanism", "claim ε", *extra, "ε̂", "above the claim", "non-private ε̂"]
    heads += ["2x control ε̂ (caught)", "CPU s added", "load"]
    rows = ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
    for p in lines:
        cells = [p["mechanism"], f"{p['epsilon']:g}"]
        cells += [str(p.get("seed", 0))] if seeds else []
        if "refused" in p:
            said = p["refused"].split(":")[0]  # the verdict; its reason is in the line
            rows.append("| " + " | ".join([*cells, f"refused before training: {said}"]) + " |")
            continue
        cells += [f"{p.get('label_epsilon', p['epsilon']):.3g}"] if tightened else []
        doubled = p["power"]["2x budget"]
        caught = "caught" if p["caught"]["2x budget"] else "not caught"
        cells += [f"{p['epsilon_hat']:.2f}", "YES" if p["violates"] else "no"]
        cells += [f"{p['power']['non-private']:.2f}", f"{doubled:.2f} ({caught})"]
        cells += [f"{p['cpu_s']:.0f}", f"{p['load_1min']:.1f}"]
        rows.append("| " + " | ".join(cells) + " |")
    recipes = sorted(
        {
            f"{p['canaries']} canaries (seed {p.get('seed', 0)}), model {p['model']}, "
            f"{p['epochs']} epochs, learning rate {p.get('learning_rate', 'not recorded')}"
            for p in lines
            if "refused" not in p
        }
    )
    return "; ".join(recipes) + "\n\n" + "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, appended to")
    parser.add_argument("--dataset", default="fashion-mnist")
    parser.add_argument("--mechanisms", nargs="+", default=list(MECHANISMS))
    parser.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    parser.add_argument("--seed", type=int, default=0, help="the canaries' draw and the runs'")
    parser.add_argument("--learning-rate", type=float, help="in place of the recipe's")
    parser.add_argument("--table", action="store_true", help="print --out as a table and stop")
    args = parser.parse_args()
    if args.table:
        lines = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
        print(_table(lines))
        return
    settings = {} if args.learning_rate is None else {"learning_rate": args.learning_rate}
    for epsilon in args.epsilons:
        for mechanism in args.mechanisms:
            point = _point(mechanism, args.dataset, epsilon, args.seed, settings)
            with args.out.open("a") as out:
                out.write(json.dumps(point) + "\n")
            print(json.dumps(point), flush=True)


if __name__ == "__main__":
    main()
