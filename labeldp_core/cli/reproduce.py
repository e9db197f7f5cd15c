"""``reproduce``: our figures beside the papers' and the seeds' claims."""

import argparse
import csv
import json
from pathlib import Path

from labeldp_core.base.validation import check_output_path
from labeldp_core.cache import ResultCache
from labeldp_core.cli.shared import stderr_bar, stored_runs
from labeldp_core.experiments.stopping import counted
from labeldp_core.services import reproduce

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
    cache, configs = ResultCache(), reproduce.computed_configs()  # planned before, not on a stop
    with counted(lambda: stored_runs(configs, cache)):
        papers = reproduce.paper_rows(cache, args.compute, stderr_bar(lines=True))
    lessons = reproduce.lesson_rows()
    if args.csv:
        with Path(args.csv).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, REPRODUCE_COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(papers)
    if args.html:
        from labeldp_core.services.reports import tables_report  # plotly: only for the report

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


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``reproduce``."""
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
