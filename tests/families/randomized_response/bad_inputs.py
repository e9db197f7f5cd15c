"""Randomized response's rows of the bad-input matrix: its release and its closed forms.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    LABELS,
    RNG,
    Row,
    epsilons,
    labels,
    num_classes,
    rngs,
)

ROWS = [
    Row(
        mechanisms.randomized_response,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=[*epsilons(), *labels(), *num_classes(), *rngs()],
    ),
    Row(
        mechanisms.keep_probability,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.expected_flip_rate,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
    Row(
        mechanisms.transition_matrix,
        {"epsilon": 1.0, "num_classes": 3},
        bad=[*epsilons(), *num_classes()],
    ),
]
