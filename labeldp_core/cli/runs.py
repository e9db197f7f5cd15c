"""``run`` and ``sweep``: one mechanism at one epsilon, or over epsilons and seeds."""

import argparse
import csv
import json
import sys
from pathlib import Path

from labeldp_core.base.validation import check_output_path
from labeldp_core.cache import ResultCache
from labeldp_core.cli.cluster import cluster_options, cluster_session, reported
from labeldp_core.cli.shared import parse_settings, stderr_bar, stored_runs
from labeldp_core.cli.tables import table_dataset, table_options
from labeldp_core.cluster import run_on_cluster
from labeldp_core.experiments import RunResult, make_config, run, sweep, sweep_configs
from labeldp_core.experiments.stopping import counted

CSV_COLUMNS = (
    "mechanism",
    "dataset",
    "seed",
    "epsilon",
    "epsilon_spent",
    "delta",
    "privacy_unit",
    "flip_rate",
    "label_accuracy",
    "test_accuracy",
    "test_mse",
    "baseline_test_accuracy",
    "baseline_test_mse",
    "n_train",
    "n_test",
    "elapsed_s",
    "cached",
)


def _summary(result: RunResult) -> str:
    if result.test_accuracy is not None:
        score = f"test accuracy {result.test_accuracy:.4f}"
        baseline = f"{result.baseline_test_accuracy:.4f}"
    else:
        score = f"test MSE {result.test_mse:.4f}"
        baseline = f"{result.baseline_test_mse:.4f}"
    flips = "" if result.flip_rate is None else f", flip rate {result.flip_rate:.3f}"
    source = "from cache" if result.cached else f"computed in {result.elapsed_s:.1f} s"
    return (
        f"{result.mechanism} on {result.dataset} (seed {result.seed}): epsilon asked "
        f"{result.epsilon:g}, spent {result.epsilon_spent:.4g} (delta {result.delta:g}, "
        f"{result.privacy_unit}-level){flips}; {score} (non-private baseline {baseline}); {source}"
    )


def _cmd_run(args: argparse.Namespace) -> None:
    table_dataset(args)
    config = make_config(
        args.mechanism, args.dataset, args.epsilon, args.seed, args.epochs, parse_settings(args.set)
    )
    result = run(config, progress=stderr_bar())
    for warning in result.details.get("warnings", ()):
        print(f"warning: {warning}", file=sys.stderr)
    print(json.dumps(result.to_dict(), indent=2) if args.json else _summary(result))


def _cmd_sweep(args: argparse.Namespace) -> int:
    # Checked before the sweep, so a mistyped folder does not surface after an hour of training.
    for option, path in (("--csv", args.csv), ("--html", args.html)):
        if path:
            check_output_path(path, option)
    table_dataset(args)
    configs = sweep_configs(
        args.mechanism,
        args.dataset,
        args.epsilons,
        args.seeds,
        args.epochs,
        parse_settings(args.set),
    )
    status, cache = 0, ResultCache()
    with counted(lambda: stored_runs(configs, cache)), cluster_session(args, configs) as session:
        if session is None:
            results = sweep(
                args.mechanism,
                args.dataset,
                args.epsilons,
                args.seeds,
                epochs=args.epochs,
                settings=parse_settings(args.set),
                cache=cache,
                progress=stderr_bar(),
            )
        else:
            report = run_on_cluster(session, configs, cache, stderr_bar(lines=True))
            status, results = reported(report), report.results
    if results:
        _write_sweep(args, results)
    elif args.json:
        print("[]")
    return status


def _write_sweep(args: argparse.Namespace, results: list[RunResult]) -> None:
    if args.html:
        from labeldp_core import plots  # plotly: only for the report, not every command's start
        from labeldp_core.services.reports import html_report

        metric = "test accuracy" if results[0].test_accuracy is not None else "test MSE"
        figure = plots.score_vs_epsilon(
            {args.mechanism: results}, results[0].baseline_score, metric=metric
        )
        settings = {
            "mechanism": args.mechanism,
            "dataset": args.dataset,
            "seeds": " ".join(map(str, args.seeds)),
            "epochs": results[0].epochs,
        } | dict(results[0].settings)
        caption = f"Mean over seeds with the range as a band; dashed: {metric} on clean labels."
        report = html_report(
            f"{args.mechanism} on {args.dataset}", [(figure, caption)], results, settings
        )
        Path(args.html).write_text(report, encoding="utf-8")
    if args.csv:
        with Path(args.csv).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, CSV_COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(result.to_dict() for result in results)
    if args.json:
        print(json.dumps([result.to_dict() for result in results], indent=2))
    else:
        for result in results:
            print(_summary(result))


def _run_options(sub: argparse.ArgumentParser) -> None:
    """What ``run`` and ``sweep`` share: the mechanism, its dataset and its settings."""
    sub.add_argument("mechanism", help="mechanism id, see `list`")
    sub.add_argument("--dataset", required=True, help="dataset id, see `list`")
    sub.add_argument("--epochs", type=int, help="training epochs (default: per dataset)")
    sub.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a mechanism setting"
    )
    sub.add_argument("--json", action="store_true", help="print the JSON result")
    table_options(sub)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``run`` and ``sweep``."""
    single = commands.add_parser("run", help="run one mechanism at one epsilon")
    _run_options(single)
    single.add_argument("--epsilon", type=float, required=True, help="privacy budget, > 0")
    single.add_argument("--seed", type=int, default=0)
    single.set_defaults(handler=_cmd_run)

    many = commands.add_parser("sweep", help="run a mechanism over epsilons and seeds")
    _run_options(many)
    many.add_argument("--epsilons", type=float, nargs="+", required=True, metavar="E")
    many.add_argument("--seeds", type=int, nargs="+", default=[0], metavar="S")
    many.add_argument("--csv", metavar="PATH", help="also write the results as CSV")
    many.add_argument("--html", metavar="PATH", help="also write a standalone HTML report")
    cluster_options(many)
    many.set_defaults(handler=_cmd_sweep)
