"""The forkserver's preload: what every worker starts with, and what it leaves to first use."""

import subprocess
import sys

_PROBE = """
import sys
from labeldp_core.experiments.forked_workers import worker_context

with worker_context().Pool(1) as pool:
    print(pool.apply(eval, ("sorted(set(__import__('sys').modules) & set(%r))" % (MODULES,),)))
"""


def test_a_worker_starts_with_the_library_imported_and_without_torch_dynamo():
    """torch._dynamo cost each forkserver 1.0 to 1.4 s of CPU; only LabelDP-Pro needs it now."""
    modules = ["labeldp_core.cli", "labeldp_core.services.warm", "torch", "torch._dynamo"]
    probe = f"MODULES = {modules!r}\n{_PROBE}"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-800:]
    assert done.stdout.strip() == str(modules[:3])
