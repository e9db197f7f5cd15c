"""Crafted canary inputs: patterns no training example resembles, so only the canary teaches them.

Under label DP the inputs are public, so an auditor may choose them: the guarantee holds for any
features. A flipped canary keeps its training image, whose look already tells the model its true
class, so the planted wrong label is learnt only as far as the model memorises against that
evidence. A crafted canary's input is random binary noise between each feature's lowest and
highest training value (crafted inputs raise an audit's power: Nasr et al. 2021, "Adversary
instantiation: lower bounds for differentially private machine learning"): nothing else in the
training set looks like it, so what the model says about it comes from that one example's
released label.
"""

import numpy as np

from labeldp_core.errors import InvalidInputError

__all__ = ["CANARY_KINDS", "DEFAULT_CANARY_KIND", "check_canary_kind", "crafted_inputs"]

#: The canary kinds an audit offers: training images with a flipped label, or crafted inputs.
CANARY_KINDS = ("flipped", "crafted")
#: The default: on digits crafted canaries gave the non-private control 2.43 against flipped
#: ones' 0.77 (guessing on the most confident half; docs/audit.md).
DEFAULT_CANARY_KIND = "crafted"


def check_canary_kind(kind: object) -> str:
    """``kind`` if it is a canary kind, else a clear error naming them."""
    if kind not in CANARY_KINDS:
        raise InvalidInputError(
            f"canary kind must be one of {', '.join(CANARY_KINDS)}, got {kind!r}"
        )
    return str(kind)


def crafted_inputs(x_train: np.ndarray, count: int, seed: int) -> np.ndarray:
    """``count`` seeded noise inputs of ``x_train``'s shape and dtype, each feature at its extremes.

    Each feature is its lowest or its highest value over the training rows, by a fair coin: a
    feature that is constant in training (an image's empty border) stays constant.

    >>> x = np.array([[0.0, 1.0], [0.5, 1.0]], dtype=np.float32)
    >>> crafted = crafted_inputs(x, 3, seed=0)
    >>> crafted.shape, crafted.dtype.name, bool(np.all(crafted[:, 1] == 1.0))
    ((3, 2), 'float32', True)
    """
    low, high = x_train.min(axis=0), x_train.max(axis=0)
    rng = np.random.default_rng([seed, 0xC4AF7])
    coins = rng.random((count, *x_train.shape[1:])) < 0.5
    return np.where(coins, high, low).astype(x_train.dtype)
