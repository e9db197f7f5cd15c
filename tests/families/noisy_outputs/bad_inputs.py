"""Noisy outputs' rows of the bad-input matrix: softmax outputs under Laplace noise (local DP).

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    PROBS,
    RNG,
    Bad,
    Row,
    epsilons,
    positives,
    probabilities,
    vectors,
)

ROWS = [
    Row(
        mechanisms.laplace_outputs,
        {"probabilities": PROBS, "epsilon": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *[
                Bad(b.arg, b.value, b.match.replace("noisy vectors", "probabilities"), b.label)
                for b in vectors("probabilities", "probabilities")
            ],
            Bad("probabilities", [[0.5, 0.2, 0.1]], "must sum to one", "sum-below-one"),
            Bad("probabilities", [[1.2, -0.1, -0.1]], "non-negative", "negative"),
        ],
    ),
    Row(
        mechanisms.actual_epsilon,
        {"epsilon": 1.0, "assumed_sensitivity": 1.0},
        bad=[*epsilons(), *positives("assumed_sensitivity", "sensitivity")],
    ),
    Row(
        mechanisms.epsilon_for_output_noise,
        {"magnitude": 0.5, "probability": 0.9},
        bad=[
            *positives("magnitude", "noise magnitude t"),
            *probabilities("probability", "probability p"),
        ],
    ),
]
