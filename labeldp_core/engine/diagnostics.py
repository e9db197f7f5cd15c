"""Which figures of a run are non-private diagnostics, said in the result and on every page.

A run releases what its mechanism's guarantee covers (the released labels, votes or prototypes,
and the model trained on them). Beside that it reports figures computed from the *true* private
data with no privacy at all (the flip rate, the true-vs-released confusion matrix whose rows sum
to the exact label histogram, a model trained on the clean labels, attack accuracies), because
they show what the mechanism does. A real release would not publish them. The result's
``diagnostics`` entry names every such figure, so no reader takes one for part of the release.
"""

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "COMMON_DIAGNOSTICS",
    "DIAGNOSTICS_NOTE",
    "diagnostics_entry",
    "diagnostics_sentence",
    "lookup_path",
]

DIAGNOSTICS_NOTE = (
    "Diagnostics, not private: these figures are computed from the true private data without "
    "any privacy, to show what the mechanism does. epsilon_spent does not cover them; a real "
    "release would publish only what the mechanism released."
)
#: Top-level result keys that are diagnostics whenever a run reports them.
COMMON_DIAGNOSTICS = (
    "flip_rate",
    "label_accuracy",
    "baseline_test_accuracy",
    "baseline_test_mse",
    "details.attack",
)


def lookup_path(data: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """Whether the dotted ``path`` exists in ``data``, and its value if so."""
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def diagnostics_entry(result: Mapping[str, Any], declared: Iterable[str]) -> dict[str, Any]:
    """The ``diagnostics`` entry of a result: ``private`` False, the paths and the note.

    Args:
        result: the run's JSON (without its diagnostics entry).
        declared: paths the mechanism's runner declared; the common ones are added where present.

    Raises:
        AssertionError: if a declared path is not in the result (a stale declaration).
    """
    declared = list(declared)
    missing = [path for path in declared if not lookup_path(result, path)[0]]
    if missing:
        raise AssertionError(f"declared diagnostics not in the result: {', '.join(missing)}")
    common = [path for path in COMMON_DIAGNOSTICS if lookup_path(result, path)[0]]
    paths = list(dict.fromkeys(common + declared))
    return {"private": False, "keys": paths, "note": DIAGNOSTICS_NOTE}


def diagnostics_sentence(paths: Iterable[str]) -> str:
    """The note in plain words, naming the diagnostics of ``paths`` (for pages and reports).

    >>> diagnostics_sentence(["flip_rate", "details.confusion"])[:60]
    'Diagnostics, not private: flip rate, confusion. These figure'
    """
    names = list(dict.fromkeys(path.rsplit(".", 1)[-1].replace("_", " ") for path in paths))
    listed = ", ".join(names) or "flip rates, confusion matrices, clean baselines"
    return (
        f"Diagnostics, not private: {listed}. These figures"
        + DIAGNOSTICS_NOTE.split("these figures", 1)[1]
    )
