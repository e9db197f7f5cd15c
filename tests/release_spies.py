"""Spies at release boundaries: record what an experiment handed a release function.

Shared by the release-contract tests, which check the epsilon the arguments imply, and by the
reported-figures checks, which recompute a run's figures from what the release returned. The
calls spied on are each mechanism's :attr:`~labeldp_core.families.family.Mechanism.releases`;
what a call implies is its family's tests folder's ``release_contract.py`` (see
:func:`family_contracts`), so adding a family adds its contract with its tests, nowhere else.

A family's ``release_contract`` module holds:

- ``IMPLIED``: per mechanism, ``(calls, result) -> epsilon`` recomputed from what the releases
  received (every mechanism must have one);
- optionally ``VARIANTS`` (per mechanism, the settings whose runs reach every release),
  ``SMALL`` (settings that keep its runs small), ``FAKES`` (per release function name, a stand-in
  called instead), ``DRAW_VARIANTS`` (per mechanism, the settings the reported-figures tests
  run), ``EXTRA_DRAWS`` (``(mechanism, settings, mode) -> set`` of label-touching draws made
  outside the release functions) and ``TARGETS`` (per mechanism whose model trains on the
  release, ``(calls, result, trained) -> [(got, want), ...]``).
"""

import importlib
import importlib.util
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType

import pytest

from labeldp_core.accounting import sequential_composition
from labeldp_core.noise.label_histogram import HISTOGRAM_SENSITIVITY
from labeldp_core.registry import family_of
from tests.families import family_modules

K = 10  # digits
N = 1437  # digits' training labels


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


def family_contracts() -> dict[str, ModuleType]:
    """Each registered family's ``release_contract`` module, by family id (if it has one)."""
    return family_modules("release_contract")


def merged_contracts(name: str) -> dict:
    """One table of every family contract's ``name``: IMPLIED, VARIANTS... by mechanism."""
    table: dict = {}
    for contract in family_contracts().values():
        table |= getattr(contract, name, {})
    return table


def contract_of(mechanism: str) -> ModuleType | None:
    """The ``release_contract`` module of ``mechanism``'s family, if it has one."""
    return family_contracts().get(family_of(mechanism).id)


def spy_on_releases(monkeypatch, mechanism: str, calls: list[Call]) -> None:
    """Spy on every release call ``mechanism`` declares (with its family's stand-ins)."""
    fakes = getattr(contract_of(mechanism), "FAKES", {})  # getattr(None, ...) gives {}
    for step in _mechanism(mechanism).releases:
        module = importlib.import_module(step.module)
        spy(monkeypatch, module, step.function, calls, fakes.get(step.function))


def _mechanism(mechanism: str):
    (entry,) = [m for m in family_of(mechanism).mechanisms if m.id == mechanism]
    return entry


def plans_received(call: Call) -> list:
    """The noise plans among a call's arguments (anything with a ``mode`` and ``secure``)."""
    return [v for v in call.arguments.values() if hasattr(v, "mode") and hasattr(v, "secure")]


def rr_coins_epsilon(plan) -> float:
    """What randomized response's coins spend, checked against ln(D/m) computed here."""
    ratio = math.log(plan.denominator) - math.log(plan.flip_weight)
    assert plan.epsilon_spent == pytest.approx(ratio, abs=1e-12)
    assert plan.epsilon_spent <= plan.epsilon
    return plan.epsilon_spent


def laplace_epsilon(plan, sensitivity: float) -> float:
    """What Laplace noise of the plan's scale spends for ``sensitivity``, checked as Δ/b here."""
    assert plan.sensitivity == sensitivity
    scale = plan.exact_scale if plan.exact_scale is not None else Fraction(plan.scale)
    spent = Fraction(sensitivity) / scale
    assert plan.epsilon_spent >= spent and plan.epsilon_spent == pytest.approx(float(spent))
    return plan.epsilon_spent


def after_priors(calls: list[Call], release: float) -> float:
    """The exact composition (rounded up) of the label histograms received and ``release``."""
    spent = []
    for call in only(calls, "noisy_label_counts_by_plan"):
        assert call.arguments["labels"].size == N  # the histogram reads every label
        spent.append(laplace_epsilon(call.arguments["plan"], HISTOGRAM_SENSITIVITY))
    return sequential_composition([*spent, release])
