"""RR with prior's rows of the bad-input matrix: its release and its closed forms.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    LABELS,
    NAN,
    PRIORS,
    RNG,
    Bad,
    Row,
    epsilons,
    labels,
    priors,
    rngs,
)

ROWS = [
    Row(
        mechanisms.rr_with_prior,
        {"labels": LABELS, "priors": PRIORS, "epsilon": 1.0, "rng": RNG},
        bad=[*epsilons(), *labels(), *priors(), *rngs()],
    ),
    Row(
        mechanisms.optimal_set_size,
        {"priors": PRIORS, "epsilon": 1.0},
        bad=[*epsilons(), *priors()[:-1]],
    ),
    Row(
        mechanisms.expected_keep_probability,
        {"priors": PRIORS, "epsilon": 1.0},
        bad=[*epsilons(), *priors()[:-1]],
    ),
    Row(
        mechanisms.output_probabilities,
        {"priors": PRIORS, "labels": LABELS, "epsilon": 1.0},
        bad=[*epsilons(), *labels(), *priors()],
    ),
    Row(
        mechanisms.set_keep_probability,
        {"set_size": 2, "epsilon": 1.0},
        bad=[
            *epsilons(),
            Bad("set_size", 0, "set sizes must be whole numbers >= 1", "zero"),
            Bad("set_size", [2, -1], "set sizes must be whole numbers >= 1", "negative"),
            Bad("set_size", 1.5, "set sizes must be whole numbers >= 1", "fraction"),
            Bad("set_size", NAN, "set sizes must be whole numbers >= 1", "nan"),
            Bad("set_size", "2", "set sizes must be whole numbers >= 1", "str"),
        ],
    ),
]
