"""Privacy units: how a guarantee for adding or removing an example reads for a changed label.

Label DP's neighbours differ in one label (replace-one); example-level DP's differ by adding or
removing one whole example. Changing one label is removing the example and adding it back with
the new label, two add/remove steps, so an example-level guarantee says this for a changed label
(group privacy for two steps, chained: e^ε (e^ε p + δ) + δ = e^(2ε) p + (1 + e^ε) δ).
"""

import math

from labeldp_core.base.validation import check_epsilon
from labeldp_core.errors import InvalidInputError

__all__ = ["EXAMPLE_TO_LABEL", "label_guarantee_of_example"]

#: The one sentence every page, report and the README use for the example-to-label translation.
EXAMPLE_TO_LABEL = (
    "An (ε, δ)-DP guarantee for adding or removing one example promises (2ε, (1 + e^ε)δ)-DP "
    "for changing one label, since a change is a removal followed by an addition (2ε-DP when "
    "δ = 0)."
)


def label_guarantee_of_example(epsilon: float, delta: float) -> tuple[float, float]:
    """The (epsilon, delta) for a changed label of an (epsilon, delta) add/remove guarantee.

    >>> label_guarantee_of_example(1.0, 0.0)
    (2.0, 0.0)
    >>> round(label_guarantee_of_example(1.0, 1e-5)[1], 9)
    3.7183e-05
    """
    epsilon = check_epsilon(epsilon)
    if not 0 <= delta < 1:
        raise InvalidInputError(f"delta must lie in [0, 1), got {delta!r}")
    return 2 * epsilon, (1 + math.exp(epsilon)) * delta
