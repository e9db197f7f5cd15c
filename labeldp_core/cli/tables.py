"""``--dataset file:PATH``: a CSV or Parquet table of the user's own, stored and checked."""

import argparse
import sys
from pathlib import Path

from labeldp_core.cli.cluster import wants_cluster
from labeldp_core.cluster import refuse_tables
from labeldp_core.data.tables import MAX_TABLE_BYTES, TASKS, add_table
from labeldp_core.errors import InvalidInputError

#: ``--dataset file:PATH``: a CSV or Parquet table of your own.
FILE_PREFIX = "file:"


def table_dataset(args: argparse.Namespace) -> None:
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
    if wants_cluster(args):  # before the table is prepared and kept
        refuse_tables([], named=[args.dataset])
    path = Path(args.dataset[len(FILE_PREFIX) :])
    classes = None if args.classes is None else args.classes.split(",")
    info = add_table(
        file_bytes(path), args.label, path.stem, args.task, args.low, args.high, args.grid, classes
    )
    for note in info.notes:
        print(f"note: {note}", file=sys.stderr)
    args.dataset = info.id


def table_options(sub: argparse.ArgumentParser) -> None:
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


def file_bytes(path: Path) -> bytes:
    """The bytes of a user's table file, refused over the size limit or unreadable."""
    try:
        if path.stat().st_size > MAX_TABLE_BYTES:
            raise InvalidInputError(f"{path} is over the {MAX_TABLE_BYTES // 2**20} MB limit")
        return path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from None
