"""Command line: ``python -m labeldp_core list|run|sweep|warm|audit|choose|reproduce|forget|cache``.

Exit status 0 on success and 2 on bad input, with one ``error: ...`` line on stderr; ``audit``
exits with 1 when a mechanism (not a negative control) is caught leaking more than it claims
(``audit --model``: when its trained model's canaries prove more than it claims),
``choose`` with 1 when no mechanism reaches the target (``choose --compute``: 3 when its
training budget ran out before any mechanism reached it or was settled out of reach),
and ``sweep``, ``warm`` and ``audit`` on a cluster (``--workers``, ``--scheduler``) with 1 when
a point failed there (each failure named on stderr; every other point is stored).

One module per command group (``listing``, ``runs``, ``warm``, ``audit``, ``choose``,
``reproduce``, ``stored``), each adding its commands to the parser; what they share is in
``shared``, ``tables`` (``--dataset file:PATH``) and ``cluster`` (``--workers``, ``--scheduler``).
``labeldp_core/__main__.py`` runs :func:`main`.
"""

import sys
from collections.abc import Sequence

from labeldp_core.cli import audit, choose, listing, reproduce, runs, stored, warm
from labeldp_core.cli.shared import EXIT_BAD_INPUT, Parser
from labeldp_core.errors import LabelDPError
from labeldp_core.experiments.stopping import Stopped, signals_stop

__all__ = ["main"]

#: Each command group in the order ``--help`` lists its commands.
_GROUPS = (listing, runs, warm, audit, choose, reproduce, stored)


def _parser() -> Parser:
    parser = Parser(prog="python -m labeldp_core", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for group in _GROUPS:
        group.add_commands(commands)
    return parser


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
