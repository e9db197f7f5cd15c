"""The attack's power on a cheap proxy: a memorising model read on releases drawn by the mechanism.

No network trains: each canary's planted label is released by the mechanism's own release function
(randomized response, ALIBI's Laplace posterior) and a model that memorises its training target
answers it, with 2% of its mass spread at random over the classes (a real model's tiny
probabilities are noise). At ε = 2 randomized response releases a third label for about half the
canaries, whose two candidates both get tiny noisy probabilities; the plain log-ratio ranked many
of them among the most confident, so with seed 0 the guesses on half the canaries proved 0.66
and the 2x control at a claim of 1 went uncaught. The floored score (:data:`~.guesses.SMOOTHING`)
proves 1.73 there (RR at 4: 3.73; ALIBI at 2 and 4: 1.78, 3.28; at their claims of 1 and 2, RR
0.24 and 1.73, ALIBI 0.83 and 1.78). The seeds are fixed; the margins are several standard errors
of ε̂ (about 0.15 for 500 guesses at these accuracies), and a mechanism at its claim exceeds it
with probability at most 5% whatever the score.
"""

import numpy as np
import pytest

from labeldp_core.families.laplace_labels.alibi_release import alibi_posterior
from labeldp_core.families.laplace_labels.release import laplace_one_hot
from labeldp_core.model_audit.canaries import draw_canaries
from labeldp_core.model_audit.estimate import score_guesses
from labeldp_core.model_audit.guesses import DEFAULT_GUESS_SHARE, guess
from labeldp_core.noise.randomized_response import randomized_response

CLASSES, CANARIES = 10, 1000


def _released(mechanism: str, labels: np.ndarray, epsilon: float, rng) -> np.ndarray:
    """The training targets the mechanism releases for ``labels``: one-hot or soft."""
    if mechanism == "rr":
        return np.eye(CLASSES)[randomized_response(labels, epsilon, CLASSES, rng)]
    return alibi_posterior(laplace_one_hot(labels, epsilon, CLASSES, rng), epsilon)


def _proved(mechanism: str, epsilon: float, seed: int) -> float:
    """ε̂ of the default attack on a memoriser of ``mechanism``'s release at ``epsilon``."""
    rng = np.random.default_rng([seed, 54])
    canaries = draw_canaries(rng.integers(0, CLASSES, 4 * CANARIES), CLASSES, CANARIES, seed)
    targets = _released(mechanism, canaries.planted, epsilon, rng)
    noise = rng.dirichlet(np.full(CLASSES, 0.05), CANARIES)
    model = 0.98 * targets + 0.02 * noise
    made = guess(model, canaries.planted, canaries.decoy, DEFAULT_GUESS_SHARE)
    return score_guesses(made.correct, made.made).epsilon_lower_bound


@pytest.mark.parametrize("mechanism", ["rr", "alibi"])
@pytest.mark.parametrize("claim", [1.0, 2.0])
def test_the_mechanism_stays_below_its_claim_and_twice_it_is_caught(mechanism, claim):
    assert _proved(mechanism, claim, seed=0) < claim
    assert _proved(mechanism, 2 * claim, seed=0) > claim
