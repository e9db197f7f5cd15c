"""A stand-in for a canary training's stored outcome: scores that give a chosen count of guesses."""

import numpy as np

from labeldp_core.model_audit.canaries import Canaries


def stored(canaries: Canaries, right: int, delta: float = 0.0) -> dict:
    """What a canary training stores, with the first ``right`` canaries scored for ``y'``.

    Every canary is equally confident (0.6 against 0.4 between its two candidates), so the
    attack guesses on the first ones in order and the first ``right`` of its guesses are right.
    """
    classes = 1 + int(max(canaries.planted.max(), canaries.decoy.max()))
    scores = np.zeros((len(canaries), classes))
    rows = np.arange(len(canaries))
    first = rows < right
    scores[rows, canaries.planted] = np.where(first, 0.6, 0.4)
    scores[rows, canaries.decoy] = np.where(first, 0.4, 0.6)
    return {"scores": scores.tolist(), "test_score": 0.5, "delta": delta}
