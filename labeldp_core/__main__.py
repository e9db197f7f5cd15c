"""``python -m labeldp_core``: the command line, :mod:`labeldp_core.cli`."""

import sys

from labeldp_core.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
