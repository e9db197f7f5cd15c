"""The DP prototypes' rows of the bad-input matrix: exponential mechanism, CoinPress, prototypes.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

import numpy as np

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    INF,
    LABELS,
    NAN,
    POINTS,
    RNG,
    Bad,
    Row,
    counts,
    epsilons,
    labels,
    num_classes,
    positives,
    probabilities,
)

ROWS = [
    Row(
        mechanisms.exponential_probabilities,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0},
        bad=[
            *epsilons(),
            *positives("sensitivity"),
            Bad("utilities", [], "non-empty", "empty"),
            Bad("utilities", np.zeros((1, 2, 3)), "non-empty 1-D array", "3-D"),
            Bad("utilities", [[1.0, NAN]], "finite numbers", "nan"),
            Bad("utilities", [["a", "b"]], "must hold real numbers", "strings"),
        ],
    ),
    Row(
        mechanisms.exponential_mechanism,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
        bad=[*epsilons(), Bad("utilities", [[INF, 1.0]], "finite", "inf")],
    ),
    Row(
        mechanisms.exponential_topk,
        {"utilities": [[1.0, 2.0, 3.0]], "k": 2, "epsilon": 1.0, "sensitivity": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *counts("k"),
            Bad("k", 4, "k=4 is larger than the number of items (3)", "too-large"),
        ],
    ),
    Row(
        mechanisms.coinpress_mean,
        {"points": POINTS, "step_rhos": [0.5], "count": 4.0, "rng": RNG},
        bad=[
            Bad("points", [0.1, 0.2], "points must be an (n, d) array", "1-D"),
            Bad("points", np.zeros((4, 0)), "points must be an (n, d) array", "d=0"),
            Bad("points", [[NAN, 0.0]], "points must be finite", "nan"),
            Bad("points", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("step_rhos", [], "step_rhos must not be empty", "empty"),
            Bad("step_rhos", 0.5, "step_rhos must be a list", "scalar"),
            Bad("step_rhos", [0.5, -1.0], "each step's rho must be", "negative"),
            *positives("count"),
            *probabilities("beta"),
            Bad("bound", 0.0, "bound must be", "zero-bound"),
            Bad("spread", NAN, "spread must be", "nan-spread"),
        ],
    ),
    Row(
        mechanisms.class_utilities,
        {"candidates": POINTS, "private": POINTS, "labels": LABELS, "num_classes": 3},
        bad=[
            *num_classes(),
            *labels(),
            Bad("candidates", np.zeros((4, 3)), "must share d", "d-mismatch"),
            Bad("private", POINTS[:3], "private has 3 rows but labels has 4", "rows-mismatch"),
            Bad("candidates", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("private", [[NAN, 0.0]] * 4, "private must be finite", "nan"),
            Bad("min_score", 3.0, "0 <= min_score < max_score <= 2", "min-above-two"),
        ],
    ),
    Row(
        mechanisms.nearest_prototype,
        {"embeddings": POINTS, "prototypes": POINTS[:3]},
        bad=[
            Bad("prototypes", np.zeros((3, 5)), "must share d", "d-mismatch"),
            Bad("prototypes", np.zeros((0, 2)), "at least one prototype", "empty"),
            Bad("embeddings", [0.1, 0.2], "embeddings must be an (n, d) array", "1-D"),
            Bad("embeddings", [["a", "b"]], "must hold real numbers", "strings"),
            Bad("prototypes", [[NAN, 1.0]], "prototypes must be finite", "nan"),
        ],
    ),
    Row(
        mechanisms.private_class_means,
        {"embeddings": POINTS, "labels": LABELS, "num_classes": 3, "rho": 0.5, "rng": RNG},
        bad=[
            *num_classes(),
            *labels(),
            *positives("rho"),
            *counts("steps"),
            Bad("embeddings", POINTS[:3], "one row per label", "rows-mismatch"),
            Bad("embeddings", [["a", "b"]] * 4, "must hold real numbers", "strings"),
            Bad("count_share", 1.5, "count_share must lie in (0, 1)", "share-above-one"),
        ],
    ),
    Row(
        mechanisms.public_prototype_indices,
        {"utilities": [[1.0, 2.0, 3.0]], "epsilon": 1.0, "rng": RNG},
        bad=[
            *epsilons(),
            *counts("k"),
            Bad("k", 5, "larger than the number of items", "too-large"),
            Bad("utilities", [[NAN, 1.0]], "finite", "nan"),
        ],
    ),
]
