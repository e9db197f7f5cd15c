"""The words for how strong a guarantee is for one training label, each tied to its ε.

Issue 53: a page called 7.2x odds "a moderate ε" and an 83% guess bound "moderate" too, with no
scale behind the word. This is the one scale the explorer uses; a page that says "strong",
"moderate", "weak" or "very weak" states it beside the word (:func:`scale_sentence`), with
what each band's largest ε means for a guess:

=========  ===============  ==================  ========================
word       ε for one label  odds moved at most  a 1-in-10 guess rises to
=========  ===============  ==================  ========================
strong     up to 1          2.7x                23.2%
moderate   above 1, to 2    7.4x                45.1%
weak       above 2, to 5    148x                94.3%
very weak  above 5          more                more
=========  ===============  ==================  ========================

The bands are read on the ε for one label: an example-level ε is doubled first (see
:func:`labeldp_core.accounting.risk.risk_of`). Each band includes its upper end.
"""

import math
from dataclasses import dataclass

from labeldp_core.errors import InvalidInputError

__all__ = ["SCALE", "Band", "band_of"]


@dataclass(frozen=True)
class Band:
    """One word of the scale and the largest ε (for one label) it covers, inclusive."""

    word: str
    upto: float


#: The explorer's one scale, strongest first; the last band is open above.
SCALE = (
    Band("strong", 1.0),
    Band("moderate", 2.0),
    Band("weak", 5.0),
    Band("very weak", math.inf),
)


def band_of(epsilon: float) -> Band:
    """The band of ``epsilon`` (an ε for one label): the first whose largest ε is not below it.

    Any ε above 0 has one (an example-level ε doubled may exceed what a run accepts).

    >>> band_of(1.0).word, band_of(1.97).word, band_of(3.8).word, band_of(8.0).word
    ('strong', 'moderate', 'weak', 'very weak')
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not epsilon > 0:
        raise InvalidInputError(f"an ε is a number above 0, got {epsilon!r}")
    return next(band for band in SCALE if epsilon <= band.upto)
