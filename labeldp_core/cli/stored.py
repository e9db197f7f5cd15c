"""``forget`` and ``cache``: the commands that delete, move, count or prune stored results."""

import argparse
import hashlib
from pathlib import Path

from labeldp_core.base.validation import check_output_path
from labeldp_core.cache import ResultCache
from labeldp_core.cli.tables import FILE_PREFIX, file_bytes
from labeldp_core.data.table_results import forget_table
from labeldp_core.data.tables import stored_tables, table_exists


def _cmd_forget(args: argparse.Namespace) -> int:
    """Forget one table id, or every table made from a file's content (any label column)."""
    if args.dataset.startswith(FILE_PREFIX):
        content = hashlib.sha256(file_bytes(Path(args.dataset[len(FILE_PREFIX) :]))).hexdigest()
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


def _cmd_cache(args: argparse.Namespace) -> int:
    from labeldp_core.services.cache_transfer import export_cache, import_cache

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
    from labeldp_core.registry import FAMILIES
    from labeldp_core.services.cache_stats import cache_stats, prune_stale

    cache = ResultCache()
    try:
        if args.action == "prune":
            print(f"removed {prune_stale(cache)} stale entries (computed by other code)")
        lines = cache_stats(cache).lines([family.id for family in FAMILIES])
    finally:
        cache.close()
    print("\n".join(lines))
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``forget`` and ``cache``."""
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
