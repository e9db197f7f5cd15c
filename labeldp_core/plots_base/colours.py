"""One colour and one dash per mechanism, the same on every page and in every report.

A class that has learned "randomized response is blue" on one page must find it blue on the
next: the colour belongs to the mechanism, not to its position in a chart's selection. The dash
belongs to the privacy unit (solid for label DP, dashed for example DP, dotted for local DP on
outputs), so guarantees that are not on one scale are told apart at a glance.

Each mechanism's colour is declared by its family. This module reads no family and not the
registry (which sits above the families): a figure hands it the table of the mechanisms it may
draw (:class:`MechanismStyle` by id). A family's own figure hands its family's
(:func:`styles_of` its declared mechanisms); a figure that draws several families' mechanisms
lives in :mod:`labeldp_core.plots`, above the registry, and hands the registry's
(:data:`~labeldp_core.registry.MECHANISM_STYLES`).
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, Protocol

from labeldp_core.engine.spec import MechanismSpec, RunResult

__all__ = [
    "PALETTE",
    "UNIT_DASH",
    "VARIANT_SHADES",
    "Declared",
    "MechanismStyle",
    "band_colour",
    "mechanism_of",
    "mechanism_style",
    "series_styles",
    "shade",
    "styles_of",
]

#: Colour-blind-safe qualitative colours (Okabe & Ito 2008, then Tol's muted set): distinct on a
#: projector and in grey-scale print.
PALETTE = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#882255",
    "#117733",
    "#332288",
    "#999933",
    "#AA4499",
    "#44AA99",
    "#661100",
    "#6699CC",
)
#: Line style per privacy unit.
UNIT_DASH = {"label": "solid", "example": "dash", "output": "dot"}
#: How far the n-th variant of one mechanism moves from its colour (towards black, then white).
_VARIANT_SHADES = (0.0, -0.35, 0.4, -0.6, 0.65)
#: The shade of each named variant ("mechanism/variant", as ``series_styles`` takes them): fixed
#: by the variant, so a variant keeps its colour whichever others a chart draws beside it.
VARIANT_SHADES: dict[str, float] = {
    "laplace/argmax": _VARIANT_SHADES[0],
    "laplace/soft": _VARIANT_SHADES[1],
    "laplace/round": _VARIANT_SHADES[2],
}


def band_colour(colour: str, opacity: float = 0.2) -> str:
    """``colour`` (``#rrggbb``) as a translucent ``rgba`` fill for a band around its line.

    >>> band_colour("#0072B2")
    'rgba(0, 114, 178, 0.2)'
    """
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {opacity:g})"


def shade(colour: str, amount: float) -> str:
    """``colour`` moved towards white (``amount`` > 0) or black (< 0) by that fraction.

    >>> shade("#808080", 0.5), shade("#808080", -0.5)
    ('#c0c0c0', '#404040')
    """
    if not amount:
        return colour
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    target = 255 if amount > 0 else 0
    return "#" + "".join(f"{round(c + (target - c) * abs(amount)):02x}" for c in channels)


class MechanismStyle(NamedTuple):
    """What a chart draws of one mechanism: its colour, the dash of its unit, its name.

    Attributes:
        title: its name on the pages; a series named by it shows it.
        unit: its privacy unit, which sets its dash (:data:`UNIT_DASH`).
        colour: its colour (``#rrggbb``), declared by its family.
    """

    title: str
    unit: str
    colour: str


class Declared(Protocol):
    """A mechanism as its family declares it (:class:`~labeldp_core.families.family.Mechanism`)."""

    @property
    def spec(self) -> MechanismSpec:
        """What the engine runs: its id, title and privacy unit."""

    @property
    def colour(self) -> str:
        """Its colour on every chart."""


def mechanism_style(mechanism: Declared) -> MechanismStyle:
    """The style of a declared mechanism: its title and unit (its spec's) and its colour."""
    return MechanismStyle(mechanism.spec.title, mechanism.spec.privacy_unit, mechanism.colour)


def styles_of(mechanisms: Iterable[Declared]) -> dict[str, MechanismStyle]:
    """The table of ``mechanisms``' styles by id: a family's own, for its figures."""
    return {mechanism.spec.id: mechanism_style(mechanism) for mechanism in mechanisms}


def mechanism_of(
    name: str, results: Sequence[RunResult], table: Mapping[str, MechanismStyle]
) -> str | None:
    """The mechanism of ``table`` a series shows, or None.

    Its name if that is a mechanism's id or title, else the one mechanism all its results come
    from (None when it has no results yet, or results of several mechanisms).
    """
    if name in table:
        return name
    titled = [m for m, style in table.items() if style.title == name]
    if titled:
        return titled[0]
    found = {r.mechanism for r in results}
    return found.pop() if len(found) == 1 else None


def series_styles(
    series: Mapping[str, Sequence[RunResult]],
    table: Mapping[str, MechanismStyle],
    mechanisms: Mapping[str, str] | None = None,
) -> dict[str, tuple[str, str]]:
    """(colour, dash) per series name, from the mechanism of ``table`` each series shows.

    A series' mechanism is ``mechanisms[name]`` if given, else :func:`mechanism_of`; its colour
    is the mechanism's (its ``table`` entry) and its dash its privacy unit's, whatever
    else is drawn beside it and whether or not the others have points. ``mechanisms[name]`` may
    name a variant, "laplace/soft": it then takes that variant's fixed shade of the mechanism's
    colour (:data:`VARIANT_SHADES`). Other series of one mechanism take shades in their order;
    a series of no known mechanism takes the palette at its place.
    """
    mechanisms = mechanisms or {}
    found = {
        name: mechanisms.get(name) or mechanism_of(name, rows, table)
        for name, rows in series.items()
    }
    seen: dict[str, int] = {}
    styles = {}
    for index, (name, named) in enumerate(found.items()):
        mechanism = (named or "").split("/")[0]
        if mechanism not in table:
            styles[name] = (PALETTE[index % len(PALETTE)], "solid")
            continue
        if named in VARIANT_SHADES:
            amount = VARIANT_SHADES[named]
        else:
            variant = seen.get(mechanism, 0)
            seen[mechanism] = variant + 1
            amount = _VARIANT_SHADES[variant % len(_VARIANT_SHADES)]
        style = table[mechanism]
        styles[name] = (shade(style.colour, amount), UNIT_DASH.get(style.unit, "solid"))
    return styles
