"""``python -m labeldp_core``: the command line, :mod:`labeldp_core.cli`."""

import sys

from labeldp_core.cli import main
from labeldp_core.experiments.stopping import STOPPED_STATUSES, exit_stopped

__all__ = ["main"]

if __name__ == "__main__":
    status = main()
    if status in STOPPED_STATUSES:  # stopped by a signal: end now, without the teardown
        exit_stopped(status)
    sys.exit(status)
