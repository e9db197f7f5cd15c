"""Numbers as a reader sees them: four significant digits, no float noise, ε spent never rounded up.

The tables of the pages and the command line show the values of this module; the CSV downloads and
the run JSON keep the computed ones. One helper, so that a quantity reads the same everywhere
(``7.999999999999997`` is ``8``, a mean of thirds ``0.7333``).
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "SIGNIFICANT",
    "epsilon_text",
    "in_words",
    "proven_text",
    "readable_table",
    "score_change",
    "score_text",
    "shown",
    "shown_rows",
    "shown_spent",
]

#: Significant digits a table shows: enough for an accuracy to 1e-4, not for float noise.
SIGNIFICANT = 4


def shown(value: float | None, digits: int = SIGNIFICANT) -> float | None:
    """``value`` rounded to ``digits`` significant digits, for display (None stays None).

    >>> shown(7.999999999999997), shown(0.73333333), shown(1234567.0), shown(0.0)
    (8.0, 0.7333, 1235000.0, 0.0)
    """
    if value is None or value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def score_text(value: float) -> str:
    """A score (an accuracy, an MSE, their spread over seeds) as a sentence or a table writes it.

    Three decimals, so that one page's scores read alike (issue 53: 0.5033 beside 0.800).

    >>> score_text(0.8), score_text(0.50333), score_text(0.0058)
    ('0.800', '0.503', '0.006')
    """
    return f"{value:.3f}"


def score_change(value: float, reference: float, against: str) -> str:
    """``value`` minus ``reference``, signed, in :func:`score_text`'s format, then ``against``.

    >>> score_change(0.91, 0.97, "vs clean")
    '-0.060 vs clean'
    """
    return f"{'+' if value >= reference else '-'}{score_text(abs(value - reference))} {against}"


def epsilon_text(value: float, asked: float | None = None, digits: int = SIGNIFICANT) -> str:
    """An ε as a page writes it: :func:`shown` digits, or :func:`shown_spent` against ``asked``.

    One format for every ε a page prints (issue 53: one page wrote 0.999, another 0.9999 and a
    third 0.999873 for the same kind of ε spent). A budget table that must show where secure
    noise moved an ε from its plan (1.70001, not 1.7) asks for more ``digits``.

    >>> epsilon_text(7.999999999999997, 8.0), epsilon_text(0.999873, 1.0), epsilon_text(0.5)
    ('8', '0.9999', '0.5')
    """
    rounded = shown(value, digits) if asked is None else shown_spent(value, asked, digits)
    return f"{rounded:.{digits}g}"


def shown_spent(spent: float, asked: float, digits: int = SIGNIFICANT) -> float:
    """An ε spent for display: :func:`shown`, unless that rounds it up above the ε asked.

    Rounding to nearest can lift an ε spent that is at most the ε asked above it (an ε asked
    found by bisection, 0.123456789, spent in full, reads 0.1235): then it is cut to its digits
    instead, so that a table never shows more spent than asked. An ε spent above the ε asked
    (DPPL-Mean, whose ε asked only sets ρ) is rounded to nearest.

    >>> shown_spent(7.999999999999997, 8.0), shown_spent(0.123456789, 0.123456789)
    (8.0, 0.1234)
    """
    rounded = shown(spent, digits)
    if spent <= asked < rounded:
        scale = 10 ** (digits - 1 - math.floor(math.log10(abs(spent))))
        return math.floor(spent * scale) / scale
    return rounded


def proven_text(bound: float) -> str:
    """A lower bound an audit proved, as :func:`epsilon_text` writes an ε, never rounded up.

    A bound rounded up would claim more than was proven (3.8625 is written 3.862, not 3.863).

    >>> proven_text(3.86259), proven_text(0.52249), proven_text(0.0)
    ('3.862', '0.5224', '0')
    """
    return epsilon_text(bound, asked=bound)


def shown_rows(
    rows: Sequence[Mapping[str, Any]], spent: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """``rows`` with every float :func:`shown`; the columns of ``spent`` by :func:`shown_spent`.

    Args:
        rows: table rows (column name to value); other values are kept as they are.
        spent: the ε-spent column name to the column of the ε asked it is compared with.
    """
    spent = spent or {}
    return [
        {
            key: (
                shown_spent(value, row[spent[key]])
                if key in spent
                else shown(value)
                if isinstance(value, float)
                else value
            )
            for key, value in row.items()
        }
        for row in rows
    ]


def readable_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    headers: Mapping[str, str] | None = None,
    missing: str = "—",
) -> list[dict[str, Any]]:
    """``rows``' ``columns`` as a page shows them: headers in words, no "None" cell.

    A header is its key with spaces for underscores unless ``headers`` names it. A column with
    a missing value (None or NaN) is written as text, each number :func:`shown`, each missing
    value ``missing``; a complete column keeps its values (numbers :func:`shown`).

    >>> readable_table([{"a_b": 0.3333333, "c": None}, {"a_b": 1.0, "c": 2.5}], ["a_b", "c"])
    [{'a b': 0.3333, 'c': '—'}, {'a b': 1.0, 'c': '2.5'}]
    """
    headers = headers or {}
    gappy = {c for c in columns if any(_is_missing(row.get(c)) for row in rows)}

    def cell(column: str, value: Any) -> Any:
        if column not in gappy:
            return shown(value) if isinstance(value, float) else value
        if _is_missing(value):
            return missing
        return f"{shown(value):g}" if isinstance(value, float) else str(value)

    return [
        {headers.get(c, c.replace("_", " ")): cell(c, row.get(c)) for c in columns} for row in rows
    ]


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def in_words(items: Sequence[object]) -> str:
    """``items`` listed for a sentence.

    >>> in_words([0]), in_words(["mnist", "digits"]), in_words([0, 1, 2])
    ('0', 'mnist and digits', '0, 1 and 2')
    """
    *head, last = [str(item) for item in items]
    return f"{', '.join(head)} and {last}" if head else last
