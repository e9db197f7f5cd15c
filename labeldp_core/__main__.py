"""Command line: ``python -m labeldp_core list|run|sweep|warm|audit|choose|reproduce|forget|cache``.

Exit status 0 on success and 2 on bad input, with one ``error: ...`` line on stderr; ``audit``
exits with 1 when a mechanism (not a negative control) is caught leaking more than it claims
(``audit --model``: when its trained model's canaries prove more than it claims),
``choose`` with 1 when no mechanism reaches the target (``choose --compute``: 3 when its
training budget ran out before any mechanism reached it or was settled out of reach),
and ``sweep``, ``warm`` and ``audit`` on a cluster (``--workers``, ``--scheduler``) with 1 when
a point failed there (each failure named on stderr; every other point is stored).
"""

import argparse
import csv
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from pathlib import Path
from typing import NoReturn

from labeldp_core import reproduce
from labeldp_core.audit import (
    app_audit_points,
    audit_cases,
    stored_audit_case,
)
from labeldp_core.cache import ResultCache
from labeldp_core.choosing import make_target
from labeldp_core.choosing.choice import ANSWER_TRAININGS, Choice, choose_epsilon
from labeldp_core.cluster import (
    SCHEDULER_ENV,
    ClusterReport,
    audit_on_cluster,
    model_audits_on_cluster,
    open_cluster,
    refuse_tables,
    run_on_cluster,
)
from labeldp_core.data import DATASETS
from labeldp_core.data.table_results import forget_table
from labeldp_core.data.tables import (
    MAX_TABLE_BYTES,
    TASKS,
    add_table,
    stored_tables,
    table_exists,
)
from labeldp_core.demo import demo_configs
from labeldp_core.engine.audit import check_trials
from labeldp_core.engine.progress import Progress, silent
from labeldp_core.errors import InvalidInputError, LabelDPError
from labeldp_core.experiments import (
    MECHANISMS,
    RunConfig,
    RunResult,
    lookup,
    make_config,
    run,
    sweep,
    sweep_configs,
)
from labeldp_core.model_audit import cached_audit, demo_model_audits
from labeldp_core.registry import ON_COMPARE
from labeldp_core.stopping import Stopped, counted, signals_stop
from labeldp_core.validation import check_output_path, check_seed
from labeldp_core.warm import WarmStatus, left_text, run_warm, stored_points

EXIT_BAD_INPUT = 2
EXIT_AUDIT_VIOLATION = 1
#: Draws per neighbour of ``audit`` (the release) unless ``--trials`` says otherwise.
DEFAULT_AUDIT_TRIALS = 500_000
EXIT_POINTS_FAILED = 1
EXIT_NOT_REACHED = 1
#: ``choose --compute``: the training budget ran out before an answer.
EXIT_BUDGET_SPENT = 3
#: ``--dataset file:PATH``: a CSV or Parquet table of your own.
FILE_PREFIX = "file:"
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


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake as one ``error:`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see `python -m labeldp_core --help`)\n")


def _settings(pairs: Sequence[str]) -> dict[str, str]:
    settings = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise LabelDPError(f"--set expects KEY=VALUE, got {pair!r} (e.g. --set model=mlp)")
        settings[name.strip()] = value.strip()
    return settings


def _stderr_bar(lines: bool = False) -> Progress:
    """A progress bar on a terminal; elsewhere nothing, or one line per message if ``lines``."""
    if not sys.stderr.isatty():
        return _stderr_lines() if lines else silent

    def show(fraction: float, message: str) -> None:
        filled = int(30 * fraction)
        bar = "#" * filled + "-" * (30 - filled)
        sys.stderr.write(f"\r[{bar}] {100 * fraction:5.1f}% {message[:60]:<60}")
        if fraction >= 1.0:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


#: In line mode a long stage still prints its progress this often (seconds).
LINE_EVERY_S = 10.0


def _stderr_lines() -> Progress:
    """One line per stage (a message's part before its colon), and more within a long stage.

    A stage that lasts prints its whole message (e.g. the epoch) every :data:`LINE_EVERY_S`
    seconds, so a log of a 9-minute DP-SGD run never looks stuck.
    """
    last = {"head": "", "time": time.monotonic()}

    def show(fraction: float, message: str) -> None:
        head, now = message.split(":")[0], time.monotonic()
        if head != last["head"]:
            text = head
        elif now - last["time"] >= LINE_EVERY_S:
            text = message
        else:
            return
        last.update(head=head, time=now)
        print(f"[{100 * fraction:5.1f}%] {text}", file=sys.stderr, flush=True)

    return show


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


def _cmd_list(args: argparse.Namespace) -> None:
    if args.json:
        listing = {
            "mechanisms": [
                {
                    "id": spec.id,
                    "title": spec.title,
                    "summary": spec.summary,
                    "privacy_unit": spec.privacy_unit,
                    "task": spec.task,
                    "settings": {
                        name: {"default": s.default, "help": s.help, "choices": list(s.choices)}
                        for name, s in spec.all_settings().items()
                    },
                }
                for spec in MECHANISMS.values()
            ],
            "datasets": [
                {
                    "id": d.name,
                    "description": d.description,
                    "size": d.size,
                    "bundled": d.bundled,
                    "default_epochs": d.default_epochs,
                    "training_defaults": dict(d.training_defaults),
                }
                for d in DATASETS.values()
            ],
        }
        print(json.dumps(listing, indent=2))
        return
    print("mechanisms:")
    for spec in MECHANISMS.values():
        print(f"  {spec.id:<20} {spec.summary} [{spec.privacy_unit}-level]")
    print("datasets:")
    for info in DATASETS.values():
        where = "bundled" if info.bundled else "local files or download"
        print(f"  {info.name:<20} {info.description} [{where}]")


def _table_dataset(args: argparse.Namespace) -> None:
    """Replace ``--dataset file:PATH`` by the id of the table it holds (stored, checked)."""
    if not args.dataset.startswith(FILE_PREFIX):
        if args.label is not None:
            raise InvalidInputError("--label applies to --dataset file:PATH only")
        if (args.low, args.high, args.grid, args.classes) != (None, None, None, None):
            raise InvalidInputError(
                "--low, --high, --grid and --classes apply to --dataset file:PATH only"
            )
        return
    if args.label is None:
        raise InvalidInputError("--dataset file:PATH needs --label COLUMN: the column to protect")
    if _wants_cluster(args):  # before the table is prepared and kept
        refuse_tables([], named=[args.dataset])
    path = Path(args.dataset[len(FILE_PREFIX) :])
    classes = None if args.classes is None else args.classes.split(",")
    info = add_table(
        _file_bytes(path), args.label, path.stem, args.task, args.low, args.high, args.grid, classes
    )
    for note in info.notes:
        print(f"note: {note}", file=sys.stderr)
    args.dataset = info.id


def _table_options(sub: argparse.ArgumentParser) -> None:
    """The options that read ``--dataset file:PATH``: the label column and what it holds."""
    sub.add_argument(
        "--label",
        metavar="COLUMN",
        help="with --dataset file:PATH (a CSV or Parquet table): the label",
    )
    sub.add_argument(
        "--task",
        default="classification",
        choices=TASKS,
        help="with --dataset file:PATH: classes, or numbers (regression)",
    )
    sub.add_argument(
        "--low",
        type=float,
        help="with --task regression: the label's public "
        "lowest value (default: the column's own, which leaks it)",
    )
    sub.add_argument("--high", type=float, help="with --task regression: its highest value")
    sub.add_argument(
        "--grid",
        type=int,
        metavar="G",
        help="with --task regression: snap each "
        "label to the nearest of G evenly spaced values in [low, high] (needed for "
        "numbers that are not whole)",
    )
    sub.add_argument(
        "--classes",
        metavar="A,B,...",
        help="with --dataset file:PATH: the label's "
        "classes known in public, comma-separated (default: the column's own, "
        "which tells which classes occur)",
    )


def _file_bytes(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_TABLE_BYTES:
            raise InvalidInputError(f"{path} is over the {MAX_TABLE_BYTES // 2**20} MB limit")
        return path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _cmd_run(args: argparse.Namespace) -> None:
    _table_dataset(args)
    config = make_config(
        args.mechanism, args.dataset, args.epsilon, args.seed, args.epochs, _settings(args.set)
    )
    result = run(config, progress=_stderr_bar())
    for warning in result.details.get("warnings", ()):
        print(f"warning: {warning}", file=sys.stderr)
    print(json.dumps(result.to_dict(), indent=2) if args.json else _summary(result))


def _cmd_sweep(args: argparse.Namespace) -> int:
    # Checked before the sweep, so a mistyped folder does not surface after an hour of training.
    for option, path in (("--csv", args.csv), ("--html", args.html)):
        if path:
            check_output_path(path, option)
    _table_dataset(args)
    configs = sweep_configs(
        args.mechanism, args.dataset, args.epsilons, args.seeds, args.epochs, _settings(args.set)
    )
    status, cache = 0, ResultCache()
    with counted(lambda: _stored_runs(configs, cache)), _cluster(args, configs) as session:
        if session is None:
            results = sweep(
                args.mechanism,
                args.dataset,
                args.epsilons,
                args.seeds,
                epochs=args.epochs,
                settings=_settings(args.set),
                cache=cache,
                progress=_stderr_bar(),
            )
        else:
            report = run_on_cluster(session, configs, cache, _stderr_bar(lines=True))
            status, results = _reported(report), report.results
    if results:
        _write_sweep(args, results)
    elif args.json:
        print("[]")
    return status


def _write_sweep(args: argparse.Namespace, results: list[RunResult]) -> None:
    if args.html:
        from labeldp_core import plots  # plotly: only for the report, not every command's start
        from labeldp_core.reports import html_report

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


def _cluster(args: argparse.Namespace, configs: Sequence[RunConfig] = ()):
    """The cluster the options ask for (a context manager), or a null context for none.

    Points on a table of the user's own are refused before a cluster starts or is reached.
    """
    if _wants_cluster(args):
        refuse_tables(configs)
    session = open_cluster(args.workers, args.scheduler)
    if session is None:
        return nullcontext()
    workers = session.workers()
    print(
        f"Dask cluster: {len(workers)} workers; dashboard {session.dashboard or 'not served'}",
        file=sys.stderr,
    )
    return session


def _wants_cluster(args: argparse.Namespace) -> bool:
    """Whether a command that can use a cluster is asked to (options or $LABELDP_SCHEDULER)."""
    if not hasattr(args, "workers"):
        return False
    return (
        args.workers is not None
        or args.scheduler is not None
        or bool(os.environ.get(SCHEDULER_ENV))
    )


def _reported(report: ClusterReport) -> int:
    """Print a cluster run's counts and failures on stderr; the exit status they mean."""
    print(report.summary(), file=sys.stderr)
    return EXIT_POINTS_FAILED if report.failures else 0


def _cmd_warm(args: argparse.Namespace) -> int:
    _table_dataset(args)
    extra = reproduce.dataset_configs(args.dataset)
    cache_dir = ResultCache().directory
    with counted(lambda: stored_points(args.dataset, cache_dir, extra)):
        if _wants_cluster(args):
            return _warm_on_cluster(args, extra)
        return _warm_here(args, cache_dir, extra)


def _warm_here(args: argparse.Namespace, cache_dir: Path, extra: list[RunConfig]) -> int:
    """``warm`` on this machine's worker processes (one per core)."""
    try:
        status = run_warm(
            args.dataset, cache_dir, _warm_line, extra=extra, until_pages=args.until_pages
        )
    except BrokenProcessPool:
        raise LabelDPError(
            "a worker process died (out of memory?); every point it finished is "
            "in the cache: run warm again to go on from there"
        ) from None
    print(
        f"{status.total} demo points and audit cases for {args.dataset} are cached "
        f"({status.done} of them)",
        file=sys.stderr,
    )
    _left_for_later(args.dataset, status.later)
    for failure in status.failures:
        print(f"error: {failure}", file=sys.stderr)
    return EXIT_POINTS_FAILED if status.failures else 0


def _left_for_later(dataset: str, later: int) -> None:
    """The line that names the model audits a ``warm --until-pages`` left, if it left any."""
    if later:
        print(
            f"left for later: {later} model audits (the price-of-privacy screen's canary "
            f"audits); `warm --dataset {dataset}` computes them",
            file=sys.stderr,
        )


def _warm_line(status: WarmStatus, line: str) -> None:
    """One line per point done: how far, the point, the time left (:func:`left_text`'s words)."""
    print(
        f"[{100 * status.done / max(1, status.total):5.1f}%] {line}; {left_text(status)}",
        file=sys.stderr,
        flush=True,
    )


def _warm_on_cluster(args: argparse.Namespace, configs: list[RunConfig]) -> int:
    configs = [*demo_configs(args.dataset), *configs]
    progress, cache = _stderr_bar(lines=True), ResultCache()
    with _cluster(args, configs) as session:
        status = _reported(run_on_cluster(session, configs, cache, progress))
        status |= _reported(audit_on_cluster(session, app_audit_points(), cache, progress))
        audits = [
            {"mechanism": mechanism, "dataset": args.dataset, "epsilon": epsilon}
            for mechanism, epsilon in demo_model_audits(ON_COMPARE, args.dataset)
        ]
        if args.until_pages:
            missing = [a for a in audits if cached_audit(**a, cache=cache) is None]
            _left_for_later(args.dataset, len(missing))
            return status
        return status | _reported(model_audits_on_cluster(session, audits, cache, progress))


#: The columns of ``reproduce``'s papers table in its CSV and text forms.
REPRODUCE_COLUMNS = (
    "id",
    "table",
    "dataset",
    "method",
    "model",
    "recipe",
    "epsilon",
    "delta",
    "privacy_unit",
    "theirs",
    "their_clean",
    "their_retention",
    "our_mechanism",
    "our_setting",
    "computed_seeds",
    "ours",
    "ours_min",
    "ours_max",
    "our_epsilon_spent",
    "our_clean",
    "our_retention",
    "our_dataset",
    "their_without",
    "their_gain",
    "our_change",
    "gain_seeds",
    "our_with",
    "our_without",
    "our_gain",
    "our_gain_min",
    "our_gain_max",
    "comparison",
    "paper",
    "where",
    "quoted_from",
)


def _cmd_reproduce(args: argparse.Namespace) -> None:
    for option, path in (("--csv", args.csv), ("--html", args.html)):
        if path:
            check_output_path(path, option)
    cache = ResultCache()
    with counted(lambda: _stored_runs(reproduce.computed_configs(), cache)):
        papers = reproduce.paper_rows(cache, args.compute, _stderr_bar(lines=True))
    lessons = reproduce.lesson_rows()
    if args.csv:
        with Path(args.csv).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, REPRODUCE_COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(papers)
    if args.html:
        from labeldp_core.reports import tables_report  # plotly: only for the report

        report = tables_report(
            "Papers vs this explorer",
            reproduce.__doc__.split("\n\n")[1].replace("\n", " "),
            {
                "Published figures beside ours": papers,
                "The seeds' lessons: claimed vs true epsilon": lessons,
            },
        )
        Path(args.html).write_text(report, encoding="utf-8")
    if args.json:
        print(json.dumps({"papers": papers, "lessons": lessons}, indent=2))
        return
    for row in papers:
        print(reproduce.paper_line(row))
    for row in lessons:
        audit = row["audited_lower_bound"]
        proved = f"audit proves at least {audit:.3g}" if audit is not None else "no audit"
        print(
            f"lesson: {row['lesson']}; released: {row['released']}: claims "
            f"{row['claimed_epsilon']:g}, spends {row['true_epsilon']:.3g}; "
            f"{proved}"
        )


def _cmd_model_audit(args: argparse.Namespace) -> int:
    """``audit --model``: canaries in the trained model (exit 1 on a violation).

    On a cluster (``--workers``, ``--scheduler``) its three trainings run side by side. A claim
    no canary design can test (PATE's) is answered with the reason, exit 0, nothing trained.
    """
    from labeldp_core.model_audit import UntestableClaimError

    try:
        return _model_audit(args)
    except UntestableClaimError as untestable:
        report = untestable.report
        print(
            json.dumps(report, indent=2)
            if args.json
            else f"{report['mechanism']} on {report['dataset']}, trained model, epsilon "
            f"{report['claimed_epsilon']:g}: not audited\n  verdict: {report['verdict']}"
        )
        return 0


def _model_audit(args: argparse.Namespace) -> int:
    """:func:`_cmd_model_audit`'s audit, trained (or read from the cache) and printed."""
    from labeldp_core.model_audit import audit_lines, audit_model

    if args.dataset is None:
        raise InvalidInputError("audit --model needs --dataset NAME (see `list`)")
    if args.trials is not None:
        raise InvalidInputError(
            "--trials sets the draws of the release's audit; audit --model takes --canaries N"
        )
    options = {
        "canaries": args.canaries,
        "seed": check_seed(args.seed),
        "epochs": args.epochs,
        "settings": _settings(args.set),
        "kind": args.canary_kind,
        "guess_share": args.guess_share,
    }
    status, cache = 0, ResultCache()

    def stored() -> tuple[int, int]:
        found = cached_audit(args.mechanism, args.dataset, args.epsilon, cache=cache, **options)
        return int(found is not None), 1

    with counted(stored), _cluster(args) as session:
        if session is None:
            audit = audit_model(
                args.mechanism,
                args.dataset,
                args.epsilon,
                **options,
                cache=cache,
                progress=_stderr_bar(),
            )
        else:
            point = {"mechanism": args.mechanism, "dataset": args.dataset}
            point |= {"epsilon": args.epsilon, **options}
            report = model_audits_on_cluster(session, [point], cache, _stderr_bar(lines=True))
            status = _reported(report)
            if not report.results:
                return status
            (audit,) = report.results
    print(json.dumps(audit.to_dict(), indent=2) if args.json else "\n".join(audit_lines(audit)))
    return EXIT_AUDIT_VIOLATION if audit.violates else status


def _cmd_audit(args: argparse.Namespace) -> int:
    if args.model:
        return _cmd_model_audit(args)
    model_only = [args.dataset, args.canaries, args.epochs, args.set or None]
    model_only += [args.canary_kind, args.guess_share]
    if any(option is not None for option in model_only):
        raise InvalidInputError(
            "--dataset, --canaries, --canary-kind, --guess-share, --epochs and --set audit a "
            "trained model: add --model"
        )
    seed = check_seed(args.seed)
    trials = check_trials(DEFAULT_AUDIT_TRIALS if args.trials is None else args.trials)
    cases = len(audit_cases(args.mechanism, args.epsilon))
    points = [(args.mechanism, args.epsilon, i, trials, seed) for i in range(cases)]
    status, cache = 0, ResultCache()

    def stored() -> tuple[int, int]:
        found = (stored_audit_case(*point, cache=cache, compute=False) for point in points)
        return sum(case is not None for case in found), len(points)

    with counted(stored), _cluster(args) as session:
        if session is None:  # each case stored as it is done, so a stopped audit resumes
            results = [stored_audit_case(*point, cache=cache) for point in points]
        else:
            report = audit_on_cluster(session, points, cache, _stderr_bar(lines=True))
            status, results = _reported(report), report.results
    if args.json:
        report = {
            "mechanism": args.mechanism,
            "epsilon": args.epsilon,
            "trials": trials,
            "results": [result.to_dict() for result in results],
        }
        print(json.dumps(report, indent=2))
    else:
        for result in results:
            verdict = "VIOLATES its claim" if result.violates else "consistent with its claim"
            power = result.detectable_overspend
            power_text = (
                ""
                if result.violates or power is None
                else (f" (would catch an overspend above {power:.1%})")
            )
            print(
                f"{result.name}: claimed epsilon {result.claimed_epsilon:.4g} "
                f"(delta {result.claimed_delta:.3g}), lower bound "
                f"{result.epsilon_lower_bound:.4f} at {100 * result.confidence:g}% confidence "
                f"from {result.trials} trials per neighbour: {verdict}{power_text}"
            )
    real_violation = any(r.violates and not r.is_control for r in results)
    return EXIT_AUDIT_VIOLATION if real_violation else status


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m labeldp_core", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    listing = commands.add_parser("list", help="mechanisms and datasets with one-line descriptions")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_cmd_list)
    _computing_commands(commands)
    _choosing_command(commands)
    _keeping_commands(commands)
    return parser


def _choosing_command(commands: argparse._SubParsersAction) -> None:
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
        progress=_stderr_bar(lines=True),
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


def _run_options(sub: argparse.ArgumentParser) -> None:
    """What ``run`` and ``sweep`` share: the mechanism, its dataset and its settings."""
    sub.add_argument("mechanism", help="mechanism id, see `list`")
    sub.add_argument("--dataset", required=True, help="dataset id, see `list`")
    sub.add_argument("--epochs", type=int, help="training epochs (default: per dataset)")
    sub.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a mechanism setting"
    )
    sub.add_argument("--json", action="store_true", help="print the JSON result")
    _table_options(sub)


def _computing_commands(commands: argparse._SubParsersAction) -> None:
    """``run``, ``sweep``, ``warm`` and ``audit``: the commands that compute."""
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
    _cluster_options(many)
    many.set_defaults(handler=_cmd_sweep)

    warm = commands.add_parser("warm", help="precompute the default demo results into the cache")
    warm.add_argument(
        "--dataset", default="digits", help="dataset id (default: digits) or file:PATH with --label"
    )
    warm.add_argument(
        "--until-pages",
        action="store_true",
        help="stop when every page's points are ready (first views, slider stops, papers' "
        "runs); the model audits wait for a warm without it",
    )
    _table_options(warm)
    _cluster_options(warm)
    warm.set_defaults(handler=_cmd_warm)

    audit = commands.add_parser(
        "audit", help="empirical privacy audit: a lower bound on epsilon (exit 1 on a violation)"
    )
    audit.add_argument("mechanism", help="mechanism id, see `list`")
    audit.add_argument("--epsilon", type=float, required=True, help="the claimed budget, > 0")
    audit.add_argument(
        "--trials", type=int, help=f"draws per neighbour (default {DEFAULT_AUDIT_TRIALS:,})"
    )
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument("--json", action="store_true", help="print JSON")
    _cluster_options(audit)
    _model_audit_options(audit)


def _model_audit_options(audit: argparse.ArgumentParser) -> None:
    """``audit --model``: the trained model's canaries instead of the release."""
    audit.add_argument(
        "--model",
        action="store_true",
        help="audit the trained model with canaries (Malek et al. 2021; Steinke et al. 2023)",
    )
    audit.add_argument("--dataset", help="with --model: dataset id, see `list`")
    audit.add_argument(
        "--canaries", type=int, metavar="N", help="with --model: canaries (default: per dataset)"
    )
    audit.add_argument(
        "--canary-kind",
        metavar="KIND",
        help="with --model: flipped (training images, a wrong label) or crafted (noise inputs no "
        "training image resembles; the default)",
    )
    audit.add_argument(
        "--guess-share",
        type=float,
        metavar="S",
        help="with --model: the share of canaries the attack guesses on, the most confident "
        "first (default 0.5; it abstains on the rest)",
    )
    audit.add_argument("--epochs", type=int, help="with --model: training epochs")
    audit.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="with --model: a setting"
    )
    audit.set_defaults(handler=_cmd_audit)


def _keeping_commands(commands: argparse._SubParsersAction) -> None:
    """``reproduce``, ``forget`` and ``cache``: the commands that report on or move the cache."""
    again = commands.add_parser(
        "reproduce", help="our figures beside the papers' and the seeds' claims"
    )
    again.add_argument(
        "--compute",
        action="store_true",
        help="compute the runs not in the cache yet (else: cached ones only)",
    )
    again.add_argument("--json", action="store_true", help="print JSON")
    again.add_argument("--csv", metavar="PATH", help="also write the papers table as CSV")
    again.add_argument("--html", metavar="PATH", help="also write a standalone HTML report")
    again.set_defaults(handler=_cmd_reproduce)
    forget = commands.add_parser(
        "forget", help="delete a table of your own and every result computed from it"
    )
    forget.add_argument("dataset", metavar="file:PATH|table-ID")
    forget.set_defaults(handler=_cmd_forget)
    keeping = commands.add_parser(
        "cache", help="export or import the cache (every entry checked), count or prune its entries"
    )
    actions = keeping.add_subparsers(dest="action", required=True, metavar="ACTION")
    for direction, what in (("export", "write the cache to"), ("import", "store the entries of")):
        moving = actions.add_parser(direction, help=f"{what} an archive")
        moving.add_argument("path", metavar="FILE", help="the archive (.zip) to write or read")
        moving.set_defaults(handler=_cmd_cache)
    stats = actions.add_parser(
        "stats", help="per family, the entries this code reads and the stale"
    )
    stats.set_defaults(handler=_cmd_cache_stats)
    prune = actions.add_parser("prune", help="remove entries that no code of this checkout reads")
    prune.add_argument(
        "--stale", action="store_true", required=True, help="the entries computed by other code"
    )
    prune.set_defaults(handler=_cmd_cache_stats)


def _cmd_forget(args: argparse.Namespace) -> int:
    """Forget one table id, or every table made from a file's content (any label column)."""
    if args.dataset.startswith(FILE_PREFIX):
        content = hashlib.sha256(_file_bytes(Path(args.dataset[len(FILE_PREFIX) :]))).hexdigest()
        ids = [info.id for info in stored_tables() if info.content_sha256 == content]
    else:
        ids = [args.dataset] if table_exists(args.dataset) else []
    for table_id in ids:
        forget_table(table_id)
    print(
        f"forgot {len(ids)} table(s) and every result computed from them"
        if ids
        else f"no stored table comes from {args.dataset}"
    )
    return 0


def _cluster_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--workers",
        metavar="N",
        help="compute on a Dask cluster of N worker processes started on this machine",
    )
    sub.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"compute on the Dask cluster at ADDRESS, e.g. tcp://HOST:8786 (default: "
        f"${SCHEDULER_ENV} if set; without either, everything runs in this process)",
    )


def _cmd_cache(args: argparse.Namespace) -> int:
    from labeldp_core.cache_transfer import export_cache, import_cache

    cache = ResultCache()
    try:
        if args.action == "export":
            report = export_cache(cache, check_output_path(args.path, "cache export"))
            print(report.summary(f"exported to {args.path}:"))
            return 0
        report = import_cache(cache, args.path)
        print(report.summary(f"imported from {args.path}:"))
    finally:
        cache.close()
    return 1 if report.refused else 0


def _cmd_cache_stats(args: argparse.Namespace) -> int:
    """``cache stats`` (counts per family) and ``cache prune --stale``."""
    from labeldp_core.cache_stats import cache_stats, prune_stale
    from labeldp_core.registry import FAMILIES

    cache = ResultCache()
    try:
        if args.action == "prune":
            print(f"removed {prune_stale(cache)} stale entries (computed by other code)")
        lines = cache_stats(cache).lines([family.id for family in FAMILIES])
    finally:
        cache.close()
    print("\n".join(lines))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        with signals_stop():
            status = args.handler(args)
    except LabelDPError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Stopped as stop:  # SIGTERM, SIGINT (Ctrl+C) or SIGHUP: its workers are ended
        print(f"error: {stop.report()}", file=sys.stderr)
        return stop.exit_status
    return status or 0


def _stored_runs(configs: Sequence[RunConfig], cache: ResultCache) -> tuple[int, int]:
    """How many of ``configs`` are stored in ``cache``, and how many there are."""
    return sum(lookup(config, cache) is not None for config in configs), len(configs)


if __name__ == "__main__":
    sys.exit(main())
