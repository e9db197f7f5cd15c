"""What every test runs in: an empty result cache of its own, no downloads, no worker processes.

One function for the per-test fixture (``tests/conftest.py``) and for runs that a module-scoped
fixture shares between its tests (``tests/app/app_helpers.opened_once``), so the two cannot
drift apart.
"""

from pathlib import Path

import pytest

__all__ = ["isolate"]


def isolate(patch: pytest.MonkeyPatch, directory: Path) -> Path:
    """Point the library at the result cache ``directory``, offline and without workers.

    Pages compute in their own thread, where the tests' fast trainers are patched in; the compute
    service's worker processes have their own tests (tests/experiments/test_service.py).
    """
    patch.setenv("LABELDP_CACHE_DIR", str(directory))
    patch.setenv("LABELDP_OFFLINE", "1")
    patch.setenv("LABELDP_WORKERS", "0")
    return directory
