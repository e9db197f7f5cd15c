"""Each family's tests, one folder per family as in ``labeldp_core/families/``.

Besides its tests, a family's folder holds the tables the shared suites read from it (see
:func:`family_module`): ``release_contract.py`` (what its release calls imply, read by
``tests/release_spies.py``) and ``bad_inputs.py`` (its rows of the bad-input matrix, read by
``tests/contract/test_mechanism_inputs.py``).
"""

import importlib
import importlib.util
from types import ModuleType

from labeldp_core.registry import FAMILIES


def family_modules(name: str) -> dict[str, ModuleType]:
    """Each registered family's tests module ``name`` (``tests.families.<family>.<name>``), by
    family id, for the families that have one.

    A family without one is left out here, so that the coverage tests name what it leaves
    uncovered instead of every test failing to import.
    """
    found = {}
    for family in FAMILIES:
        dotted = f"{__name__}.{family.id}.{name}"
        if has_tests(family.id) and importlib.util.find_spec(dotted):
            found[family.id] = importlib.import_module(dotted)
    return found


def has_tests(family: str) -> bool:
    """Whether the family ``family`` (its id) has a tests folder, ``tests/families/<family>/``."""
    return importlib.util.find_spec(f"{__name__}.{family}") is not None
