"""One colour and one dash per mechanism, the same on every page and in every report.

A class that has learned "randomized response is blue" on one page must find it blue on the
next: the colour belongs to the mechanism, not to its position in a chart's selection. The dash
belongs to the privacy unit (solid for label DP, dashed for example DP, dotted for local DP on
outputs), so guarantees that are not on one scale are told apart at a glance.
"""

from collections.abc import Mapping, Sequence

from labeldp_core.experiments import MECHANISMS
from labeldp_core.experiments.spec import RunResult

__all__ = ["MECHANISM_COLOURS", "PALETTE", "UNIT_DASH", "band_colour", "series_styles"]

#: Colour-blind-safe qualitative colours (Okabe & Ito 2008, then Tol's muted set): distinct on a
#: projector and in grey-scale print.
PALETTE = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#117733",
    "#332288", "#999933", "#AA4499", "#44AA99", "#661100", "#6699CC",
)  # fmt: skip
#: Each registered mechanism's colour, in registration order.
MECHANISM_COLOURS: dict[str, str] = {
    mechanism: PALETTE[index % len(PALETTE)] for index, mechanism in enumerate(MECHANISMS)
}
#: Line style per privacy unit.
UNIT_DASH = {"label": "solid", "example": "dash", "output": "dot"}


def band_colour(colour: str, opacity: float = 0.2) -> str:
    """``colour`` (``#rrggbb``) as a translucent ``rgba`` fill for a band around its line.

    >>> band_colour("#0072B2")
    'rgba(0, 114, 178, 0.2)'
    """
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {opacity:g})"


def series_styles(series: Mapping[str, Sequence[RunResult]]) -> dict[str, tuple[str, str]]:
    """(colour, dash) per series name.

    When every series is one mechanism, and no two share one, each gets its mechanism's colour
    and its privacy unit's dash; otherwise (variants of one mechanism side by side) the series
    take the palette in order, solid.
    """
    mechanisms = [{r.mechanism for r in results} for results in series.values()]
    single = [next(iter(m)) for m in mechanisms if len(m) == 1]
    if len(single) == len(series) and len(set(single)) == len(single):
        return {
            name: (MECHANISM_COLOURS.get(mechanism, PALETTE[0]),
                   UNIT_DASH.get(MECHANISMS[mechanism].privacy_unit, "solid"))
            for name, mechanism in zip(series, single, strict=True)
        }  # fmt: skip
    return {name: (PALETTE[i % len(PALETTE)], "solid") for i, name in enumerate(series)}
