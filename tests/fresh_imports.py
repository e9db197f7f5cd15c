"""What a new interpreter has imported after some code: for the tests of what stays unimported.

Lazy imports keep the command line, the registry and the workers quick (torch, scikit-learn,
``torch._dynamo`` each cost seconds); only a process that imported nothing before can tell.
"""

import json
import subprocess
import sys
from collections.abc import Iterable

#: Code that loads digits as ``d``, for a probe that trains.
DIGITS = "from labeldp_core.data import load_dataset\nd = load_dataset('digits')"


def imported_after(code: str, packages: Iterable[str]) -> list[str]:
    """The modules of ``packages`` (each one and what is under it) imported after ``code``, sorted.

    ``code`` runs in a new interpreter; a failure fails the test with its error's end.
    """
    names = sorted(packages)
    probe = (
        f"{code}\nimport json, sys\n"
        f"names = {names!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules\n"
        "    if any(m == n or m.startswith(n + '.') for n in names))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-800:]
    return json.loads(done.stdout.strip().splitlines()[-1])
