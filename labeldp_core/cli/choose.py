"""``choose``: the smallest epsilon per mechanism that reaches a target, best first."""

import argparse
import json
import sys

from labeldp_core.choosing import make_target
from labeldp_core.choosing.choice import ANSWER_TRAININGS, Choice, choose_epsilon
from labeldp_core.cli.shared import stderr_bar

#: No mechanism reaches the target.
EXIT_NOT_REACHED = 1
#: ``choose --compute``: the training budget ran out before an answer.
EXIT_BUDGET_SPENT = 3


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``choose``: the smallest ε per mechanism that reaches a target (exit 1 if none does)."""
    choose = commands.add_parser(
        "choose", help="the smallest epsilon per mechanism reaching a target accuracy or MSE"
    )
    choose.add_argument("--dataset", required=True, help="dataset id, see `list`")
    target = choose.add_mutually_exclusive_group(required=True)
    target.add_argument("--target-accuracy", type=float, metavar="A", help="test accuracy ≥ A")
    target.add_argument("--target-mse", type=float, metavar="M", help="test MSE ≤ M")
    target.add_argument(
        "--within-points",
        type=float,
        metavar="P",
        help="test accuracy within P points of the clean model's",
    )
    choose.add_argument(
        "--unit",
        default="label",
        help="the privacy unit you need: label (one label changed; default) or example (one "
        "example added or removed)",
    )
    choose.add_argument(
        "--confident",
        action="store_true",
        help="every seed (the lower band), not the mean, must reach the target",
    )
    choose.add_argument(
        "--compute",
        action="store_true",
        help="compute what the answers need, at most --max-trainings runs: a coarse search "
        "on epsilon for each mechanism without an answer (cheapest first), then bisection "
        "(else: the cache only); exit 3 when the budget ran out before an answer",
    )
    choose.add_argument(
        "--max-trainings",
        type=int,
        default=ANSWER_TRAININGS,
        metavar="N",
        help=f"with --compute: the most runs it makes in all (default {ANSWER_TRAININGS})",
    )
    choose.add_argument("--json", action="store_true", help="print JSON")
    choose.set_defaults(handler=_cmd_choose)


def _cmd_choose(args: argparse.Namespace) -> int:
    kind, value = next(
        (kind, value)
        for kind, value in (
            ("accuracy", args.target_accuracy),
            ("mse", args.target_mse),
            ("within", args.within_points),
        )
        if value is not None
    )
    target = make_target(kind, value, args.unit, args.confident)
    choice = choose_epsilon(
        args.dataset,
        target,
        compute=args.compute,
        fill=args.compute,
        max_trainings=args.max_trainings,
        progress=stderr_bar(lines=True),
    )
    if args.json:
        print(json.dumps(choice.to_dict(), indent=2))
        if choice.unsettled:
            print(f"note: {_unsettled(choice)}", file=sys.stderr)
    else:
        _print_choice(choice)
    if choice.reached:
        return 0
    return EXIT_BUDGET_SPENT if choice.unsettled else EXIT_NOT_REACHED


def _unsettled(choice: Choice) -> str:
    """What the training budget left open, and the budget that would settle it."""
    more = choice.more_trainings
    rerun = f"run again with --max-trainings {more} (the runs done are cached)"
    if choice.reached:
        names = ", ".join(mechanism for mechanism, _ in choice.unsettled)
        return f"{more} more trainings would answer for {names} too: {rerun}"
    return (
        f"the training budget ran out before an answer ({choice.trainings} runs computed): "
        f"{more} more trainings would settle it: {rerun}"
    )


def _print_choice(choice: Choice) -> None:
    print(f"Choose epsilon on {choice.dataset}: {choice.target.describe()}")
    for rank, found in enumerate(choice.answers, 1):
        print(f"{rank:>2}. {found.sentence()}")
    if not choice.answers:
        print(
            f"no computed curve on {choice.dataset} answers this yet: the same command with "
            f"--compute computes what the answers need (or `python -m labeldp_core warm "
            f"--dataset {choice.dataset}`, every curve)"
        )
    elif not choice.reached:
        print("no mechanism reaches the target on the computed epsilons")
    for mechanism, reason in choice.skipped:
        print(f"not considered: {mechanism} ({reason})")
    if choice.missing:
        print(
            f"note: {choice.missing} runs of the grid are not cached; an epsilon missing a "
            f"seed is left out (warm --dataset {choice.dataset} computes them)"
        )
    if choice.trainings:
        print(f"note: computed {choice.trainings} runs now (cached)")
    if choice.unsettled:
        print(f"note: {_unsettled(choice)}")
    for note in choice.notes:
        print(f"note: {note}")
