"""PATE's rows of the bad-input matrix: the teachers' vote aggregation.

Accepted on purpose (not an error): a noise scale of 0 in ``noisy_argmax`` is the documented "no
privacy" case.

Read by ``tests/contract/test_mechanism_inputs.py`` (:func:`family_rows`), with the vocabulary of
``tests/contract/bad_values.py``.
"""

import numpy as np

from labeldp_core import mechanisms
from tests.contract.bad_values import (
    INF,
    NAN,
    RNG,
    VOTES,
    Bad,
    Row,
    num_classes,
    rngs,
    vote_table,
)

ROWS = [
    Row(
        mechanisms.noisy_argmax,
        {"vote_counts": VOTES, "rng": RNG, "laplace_scale": 1.0},
        bad=[
            *vote_table(),
            *rngs(),
            Bad("laplace_scale", -1.0, "laplace_scale must be a finite number >= 0", "negative"),
            Bad("laplace_scale", NAN, "laplace_scale must be a finite number >= 0", "nan"),
            Bad("laplace_scale", "1", "laplace_scale must be a number", "str"),
            Bad("laplace_scale", None, "give exactly one of laplace_scale", "neither"),
            Bad("gaussian_sigma", 1.0, "give exactly one of laplace_scale", "both"),
        ],
    ),
    Row(
        mechanisms.noisy_vote_counts,
        {"vote_counts": VOTES, "rng": RNG, "gaussian_sigma": 1.0},
        bad=[
            *vote_table(),
            *rngs(),
            Bad("gaussian_sigma", -1.0, "gaussian_sigma must be a finite number >= 0", "negative"),
            Bad("gaussian_sigma", "1", "gaussian_sigma must be a number", "str"),
            Bad("laplace_scale", 1.0, "give exactly one of laplace_scale", "both"),
            Bad("noise", "quantum", "noise must be one of", "unknown-noise"),
        ],
    ),
    Row(
        mechanisms.vote_counts,
        {"votes": [[0, 1], [2, 1]], "num_classes": 3},
        bad=[
            *num_classes(),
            Bad("votes", [[0, 3]], "must lie in 0..2", "out-of-range"),
            Bad("votes", [[0, -1]], "must lie in 0..2", "negative"),
            Bad("votes", [[0.0, 1.0]], "integer class indices", "floats"),
            Bad("votes", np.zeros((0, 2), dtype=int), "non-empty (teachers, queries)", "empty"),
            Bad("votes", [0, 1], "non-empty (teachers, queries)", "1-D"),
        ],
    ),
    Row(
        mechanisms.plurality,
        {"vote_counts": VOTES},
        bad=vote_table(),
    ),
    Row(
        mechanisms.top_two_gap,
        {"vote_counts": VOTES},
        bad=vote_table(),
    ),
    Row(
        mechanisms.confident_gnmax,
        {
            "vote_counts": VOTES,
            "rng": RNG,
            "threshold": 5.0,
            "threshold_sigma": 1.0,
            "gaussian_sigma": 1.0,
        },
        bad=[
            *vote_table(),
            Bad("threshold", NAN, "threshold must be finite", "nan-threshold"),
            Bad("threshold", "5", "threshold must be a number of votes", "str-threshold"),
            Bad(
                "threshold_sigma", -1.0, "threshold_sigma must be a finite number >= 0", "negative"
            ),
            Bad("gaussian_sigma", INF, "gaussian_sigma must be a finite number >= 0", "inf"),
        ],
    ),
]
