"""``list``: mechanisms and datasets, one line each or as JSON."""

import argparse
import json

from labeldp_core.data import DATASETS
from labeldp_core.experiments import MECHANISMS


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


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``list``."""
    listing = commands.add_parser("list", help="mechanisms and datasets with one-line descriptions")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_cmd_list)
