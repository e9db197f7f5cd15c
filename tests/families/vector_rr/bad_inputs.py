"""Vector randomized response's row of the bad-input matrix: its release.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    LABELS,
    RNG,
    Bad,
    Row,
    epsilons,
    labels,
    num_classes,
    rngs,
)

ROWS = [
    Row(
        mechanisms.vector_randomized_response,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=[
            *epsilons(),
            *labels(),
            *num_classes(),
            *rngs(),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
        ],
    ),
]
