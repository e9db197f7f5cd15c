"""Spies at release boundaries: record what an experiment handed a release function.

Shared by the release-contract tests, which check the epsilon the arguments imply, and by the
reported-figures checks, which recompute a run's figures from what the release returned.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Call:
    """One call of a release function: its arguments by name, and what it returned."""

    name: str
    arguments: dict
    returned: object


def spy(monkeypatch, module, name: str, calls: list[Call], fake: Callable | None = None) -> None:
    """Replace ``module.name`` by a wrapper that appends each call (or calls ``fake`` instead)."""
    real = getattr(module, name)
    signature = inspect.signature(real)

    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        returned = (fake or real)(*args, **kwargs)
        calls.append(Call(name, dict(bound.arguments), returned))
        return returned

    monkeypatch.setattr(module, name, wrapper)


def only(calls: list[Call], name: str) -> list[Call]:
    """The calls of one release function, in order."""
    return [call for call in calls if call.name == name]
