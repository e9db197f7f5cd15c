"""``warm``: the demo set of the app's pages into the cache, then the model audits."""

import argparse
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from labeldp_core.cache import ResultCache
from labeldp_core.cli.cluster import cluster_options, cluster_session, reported, wants_cluster
from labeldp_core.cli.shared import EXIT_POINTS_FAILED, stderr_bar
from labeldp_core.cli.tables import table_dataset, table_options
from labeldp_core.cluster import audit_on_cluster, model_audits_on_cluster, run_on_cluster
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments import RunConfig, lookup
from labeldp_core.experiments.demo import demo_configs
from labeldp_core.experiments.stopping import counted
from labeldp_core.model_audit import cached_audit, demo_model_audits
from labeldp_core.registry import ON_COMPARE
from labeldp_core.services import reproduce
from labeldp_core.services.release_audits import app_audit_points
from labeldp_core.services.warm import (
    WarmStatus,
    later_words,
    left_text,
    lines_and_bands,
    run_warm,
    stored_points,
)


def _cmd_warm(args: argparse.Namespace) -> int:
    table_dataset(args)
    extra = reproduce.dataset_configs(args.dataset)
    cache_dir = ResultCache().directory
    if wants_cluster(args):
        with counted(lambda: stored_points(args.dataset, cache_dir, extra)):
            return _warm_on_cluster(args, extra)
    return _warm_here(args, cache_dir, extra)


def _warm_here(args: argparse.Namespace, cache_dir: Path, extra: list[RunConfig]) -> int:
    """``warm`` on this machine's worker processes (one per core).

    Stopped, it says how many points are done from the status the warm keeps as it goes
    (nothing planned again between its workers' end and its exit).
    """
    kept: list[WarmStatus] = []
    try:
        with counted(lambda: (kept[0].done, kept[0].total) if kept else None):
            status = run_warm(
                args.dataset,
                cache_dir,
                _warm_line,
                extra=extra,
                until_pages=args.until_pages,
                planned=kept.append,
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
    _left_for_later(args.dataset, status.later_bands, status.later)
    for failure in status.failures:
        print(f"error: {failure}", file=sys.stderr)
    return EXIT_POINTS_FAILED if status.failures else 0


def _left_for_later(dataset: str, bands: int, audits: int) -> None:
    """The line that names what a ``warm --until-pages`` left, if it left anything.

    The curves' other seeds (drawn as their bands) and the price-of-privacy screen's canary
    audits.
    """
    if bands or audits:
        print(
            f"left for later: {later_words(bands, audits)}; "
            f"`warm --dataset {dataset}` computes them",
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
    progress, cache = stderr_bar(lines=True), ResultCache()
    left = []
    if args.until_pages:  # the bands wait, as on this machine's workers
        bands = set(lines_and_bands(args.dataset)[1])
        left = [c for c in configs if c in bands and lookup(c, cache) is None]
        configs = [c for c in configs if c not in bands]
    with cluster_session(args, configs) as session:
        status = reported(run_on_cluster(session, configs, cache, progress))
        status |= reported(audit_on_cluster(session, app_audit_points(), cache, progress))
        audits = [
            {"mechanism": mechanism, "dataset": args.dataset, "epsilon": epsilon}
            for mechanism, epsilon in demo_model_audits(ON_COMPARE, args.dataset)
        ]
        if args.until_pages:
            missing = [a for a in audits if cached_audit(**a, cache=cache) is None]
            _left_for_later(args.dataset, len(left), len(missing))
            return status
        return status | reported(model_audits_on_cluster(session, audits, cache, progress))


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``warm``."""
    warm = commands.add_parser("warm", help="precompute the default demo results into the cache")
    warm.add_argument(
        "--dataset", default="digits", help="dataset id (default: digits) or file:PATH with --label"
    )
    warm.add_argument(
        "--until-pages",
        action="store_true",
        help="stop when every page's first view, slider stop and papers' run is ready; the "
        "curves' other seeds (their bands) and the model audits wait for a warm without it",
    )
    table_options(warm)
    cluster_options(warm)
    warm.set_defaults(handler=_cmd_warm)
