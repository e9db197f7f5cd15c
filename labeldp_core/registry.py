"""The mechanism families, found in their folders, and every table derived from them.

A family is registered by its folder alone: :func:`discover` finds every package under
:mod:`labeldp_core.families` and reads the ``FAMILY`` it declares. The engines (the runner's
lookup, the audit suite, Compare), the charts' colours, the demo grid, the app's navigation and
the docs read the tables below, which are live views of :data:`FAMILIES`: a family registered for
a moment (a test's toy family, with :func:`registered` or :func:`discovered_again`) shows on
every one of them.
"""

import pkgutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import import_module
from typing import TypeVar

from labeldp_core import families
from labeldp_core.cache.fingerprint import EVERY_FAMILY, declared_unit
from labeldp_core.engine.spec import MechanismSpec, Registered, RunConfig, RunResult
from labeldp_core.errors import InvalidInputError
from labeldp_core.families.family import CaseBuilder, DemoGrid, Family, Mechanism, Page
from labeldp_core.plots_base.colours import MechanismStyle, mechanism_style

__all__ = [
    "CASES",
    "CONTROLS",
    "DEMO_GRIDS",
    "FAMILIES",
    "MECHANISMS",
    "MECHANISM_COLOURS",
    "MECHANISM_STYLES",
    "ON_COMPARE",
    "RESULT_UNITS",
    "TRAINS_ON_RELEASED_LABELS",
    "VARIANTS",
    "disclosed",
    "discover",
    "discovered_again",
    "family_of",
    "mechanism_entries",
    "mechanism_spec",
    "mechanism_title",
    "pages",
    "registered",
    "registration",
    "release_api",
    "result_unit",
    "threat_card",
    "tuning_of",
]


def discover() -> list[Family]:
    """Every family folder under :mod:`labeldp_core.families`, each its package's ``FAMILY``.

    Every package found on the families' path (its folders; a test may add one) declares a
    :class:`Family` named ``FAMILY`` in its ``__init__.py``. They are listed by their declared
    :attr:`~Family.order`, then id, the order of the app's navigation and the docs.

    Raises:
        TypeError: if a package under the families declares no ``FAMILY``.
    """
    found = []
    for package in pkgutil.iter_modules(families.__path__, f"{families.__name__}."):
        if package.ispkg:
            declared = getattr(import_module(package.name), "FAMILY", None)
            if not isinstance(declared, Family):
                raise TypeError(f"{package.name} declares no FAMILY (a Family) in its __init__.py")
            found.append(declared)
    return sorted(found, key=lambda family: (family.order, family.id))


#: The families found under :mod:`labeldp_core.families`, in the order the app and the docs list
#: them (:func:`discover`).
FAMILIES: list[Family] = discover()

V = TypeVar("V")


class DerivedTable(Mapping[str, V]):
    """A read-only table by mechanism id, derived from :data:`FAMILIES` whenever they change."""

    def __init__(self, derive: Callable[[Mechanism], V | None]) -> None:
        self._derive = derive
        self._key: tuple[int, ...] = ()
        self._table: dict[str, V] = {}

    def _current(self) -> dict[str, V]:
        key = tuple(id(family) for family in FAMILIES)
        if key != self._key:
            entries = ((m.id, self._derive(m)) for m in mechanism_entries())
            self._table = {name: value for name, value in entries if value is not None}
            self._key = key
        return self._table

    def __getitem__(self, key: str) -> V:
        return self._current()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._current()!r})"


def mechanism_entries() -> list[Mechanism]:
    """Every registered mechanism, family by family.

    Raises:
        ValueError: if two families declare the same mechanism id.
    """
    entries = [mechanism for family in FAMILIES for mechanism in family.mechanisms]
    ids = [mechanism.id for mechanism in entries]
    twice = sorted({name for name in ids if ids.count(name) > 1})
    if twice:
        raise ValueError(f"mechanism ids declared by two families: {', '.join(twice)}")
    return entries


def family_of(mechanism: str) -> Family:
    """The family that declares ``mechanism``.

    Raises:
        KeyError: if no registered family declares it.
    """
    for family in FAMILIES:
        if any(entry.id == mechanism for entry in family.mechanisms):
            return family
    raise KeyError(mechanism)


def pages() -> list[tuple[Family, Page]]:
    """The families that have a page, with it, in registration order."""
    return [(family, family.page) for family in FAMILIES if family.page is not None]


@contextmanager
def registered(family: Family) -> Iterator[Family]:
    """Register ``family`` for the duration of a ``with`` block (tests, plug-ins tried out)."""
    FAMILIES.append(family)
    try:
        yield family
    finally:
        FAMILIES.remove(family)


@contextmanager
def discovered_again() -> Iterator[list[Family]]:
    """The families found anew for a ``with`` block: a folder dropped in since (a test's)."""
    before = list(FAMILIES)
    FAMILIES[:] = discover()
    try:
        yield FAMILIES
    finally:
        FAMILIES[:] = before


#: Every mechanism's spec by id: what the runner, the command line and the app run.
MECHANISMS: Mapping[str, MechanismSpec] = DerivedTable(lambda m: m.spec)
#: Each mechanism's colour on every chart, fixed by its family.
MECHANISM_COLOURS: Mapping[str, str] = DerivedTable(lambda m: m.colour)
#: Each mechanism's title, privacy unit and colour: the table the figures of several families
#: style their series by (:func:`~labeldp_core.plots_base.colours.series_styles`).
MECHANISM_STYLES: Mapping[str, MechanismStyle] = DerivedTable(mechanism_style)
#: Each mechanism's code unit, which its run results' cache keys name
#: (:func:`~labeldp_core.cache.fingerprint.declared_unit`): kept here, so a key asks no folder.
RESULT_UNITS: Mapping[str, str] = DerivedTable(lambda m: _declared_unit(m))
#: Each mechanism's demo grid.
DEMO_GRIDS: Mapping[str, DemoGrid] = DerivedTable(lambda m: m.demo)
#: The mechanisms Compare shows before the user picks.
ON_COMPARE: Mapping[str, bool] = DerivedTable(lambda m: True if m.on_compare else None)
#: The mechanisms that release a noisy label per training row and train on them: the label
#: attacks of 'What ε means' read their runs.
TRAINS_ON_RELEASED_LABELS: Mapping[str, bool] = DerivedTable(
    lambda m: True if m.releases_training_labels else None
)
#: Audit case builders by mechanism id (case, variants, controls): the audit suite's tables.
CASES: Mapping[str, CaseBuilder] = DerivedTable(lambda m: m.audit and m.audit.case)
VARIANTS: Mapping[str, tuple[CaseBuilder, ...]] = DerivedTable(
    lambda m: (m.audit.variants or None) if m.audit else None
)
CONTROLS: Mapping[str, tuple[CaseBuilder, ...]] = DerivedTable(
    lambda m: (m.audit.controls or None) if m.audit else None
)


def _declared_unit(mechanism: Mechanism) -> str:
    """:data:`RESULT_UNITS`' entry of ``mechanism``: its family's unit, by the family's folder."""
    family = family_of(mechanism.id)
    return declared_unit(family.id, family.folder)


def result_unit(mechanism: object) -> str:
    """The code unit that the cache keys of ``mechanism``'s run results name.

    Its family's (:data:`RESULT_UNITS`); every family's for a mechanism no family declares.
    """
    return RESULT_UNITS.get(str(mechanism), EVERY_FAMILY)


def release_api() -> dict[str, str]:
    """Every registered family's public release names, each with the module that defines it.

    What :mod:`labeldp_core.mechanisms` serves beside the shared noise.

    Raises:
        ValueError: if two families export the same name.
    """
    homes: dict[str, str] = {}
    for family in FAMILIES:
        for api in family.api:
            for name in api.names:
                if homes.setdefault(name, api.module) != api.module:
                    raise ValueError(f"{name} is exported by {homes[name]} and {api.module}")
    return homes


def mechanism_spec(mechanism: str) -> MechanismSpec:
    """The spec of ``mechanism`` or a clear error listing the known ids."""
    try:
        return MECHANISMS[mechanism]
    except (KeyError, TypeError):  # TypeError: not even hashable, e.g. a list
        known = ", ".join(MECHANISMS)
        raise InvalidInputError(
            f"unknown mechanism '{mechanism}'; choose one of: {known}"
        ) from None


def mechanism_title(mechanism: str) -> str:
    """How the pages name a mechanism: its title, or its id if it has none (a retired id)."""
    return MECHANISMS[mechanism].title if mechanism in MECHANISMS else mechanism


def registration(mechanism: str) -> Registered:
    """What the registry says of ``mechanism`` in one look-up: spec, code unit and card.

    Raises:
        InvalidInputError: if no family declares ``mechanism`` (:func:`mechanism_spec`).
    """
    spec = mechanism_spec(mechanism)
    (entry,) = [m for m in mechanism_entries() if m.id == mechanism]
    return Registered(spec, result_unit(mechanism), entry.card)


def threat_card(config: RunConfig, delta: float = 0.0) -> dict[str, object]:
    """What the epsilon of ``config``'s run protects: its mechanism's card.

    For the run's noise mode and the δ it reports (the bound says "plus δ" where δ > 0). A run
    whose settings were picked on private labels adds ``tuning``: what its ε does not cover
    (:func:`tuning_of`).
    """
    return registration(config.mechanism).disclosure(config, delta)[0]


def disclosed(result: RunResult, config: RunConfig) -> RunResult:
    """``result`` of ``config`` with what its ε covers, as its family says it today.

    Its threat card (for its δ, :func:`threat_card`) and, if a setting was picked on private
    labels, its tuning statement (:func:`tuning_of`) in its details: a result stored before a
    card changed is shown with today's (:meth:`Registered.disclosed`).
    """
    return registration(config.mechanism).disclosed(result, config)


def tuning_of(config: RunConfig) -> dict[str, object] | None:
    """Which of ``config``'s settings were picked by comparing runs on private labels, or None."""
    return registration(config.mechanism).tuning_of(config)
