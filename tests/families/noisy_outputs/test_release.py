"""Local DP on softmax outputs: scale 2/eps, what sensitivity 1 gives away, clustering scores."""

import math

import numpy as np
import pytest
from scipy import stats

from labeldp_core.errors import InvalidInputError
from labeldp_core.families.noisy_outputs.experiment import cluster_scores
from labeldp_core.mechanisms import (
    actual_epsilon,
    epsilon_for_output_noise,
    laplace_cdf,
    laplace_outputs,
)

ALPHA = 1e-3
Z = stats.norm.ppf(1 - ALPHA / 2)


def _log_density(outputs, vector, scale):
    return -np.abs(outputs - vector).sum(axis=1) / scale - outputs.shape[1] * math.log(2 * scale)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_output_noise_has_variance_two_b_squared_for_b_two_over_epsilon(epsilon):
    rng = np.random.default_rng(17)
    probabilities = rng.dirichlet(np.ones(10), size=20_000)
    noise = (laplace_outputs(probabilities, epsilon, rng) - probabilities).ravel()
    b = 2.0 / epsilon
    assert abs(np.mean(noise**2) - 2 * b**2) < Z * math.sqrt(20.0 / noise.size) * b**2


@pytest.mark.parametrize("epsilon", [0.5, 3.0])
def test_the_release_adds_laplace_noise_of_scale_two_over_epsilon(epsilon):
    # The release itself, not a density written here: its noise on the farthest pair of
    # probability vectors is Laplace(0, 2/eps) by a KS test, and the test would see 1/eps.
    rng = np.random.default_rng(23)
    rows = np.tile(np.eye(3), (4000, 1))
    noise = (laplace_outputs(rows, epsilon, rng) - rows).ravel()
    assert stats.kstest(noise, "laplace", args=(0, 2 / epsilon)).pvalue > ALPHA
    assert stats.kstest(noise, "laplace", args=(0, 1 / epsilon)).pvalue < ALPHA


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_two_over_epsilon_protects_and_one_over_epsilon_does_not(epsilon):
    # The farthest pair of probability vectors: two corners of the simplex.
    p, q = np.eye(3)[0], np.eye(3)[1]
    rng = np.random.default_rng(0)
    outputs = np.concatenate([rng.laplace(0.3, 4 / epsilon, size=(5000, 3)), [p, q, 2 * p]])
    right = _log_density(outputs, p, 2 / epsilon) - _log_density(outputs, q, 2 / epsilon)
    wrong = _log_density(outputs, p, 1 / epsilon) - _log_density(outputs, q, 1 / epsilon)
    assert right.max() == pytest.approx(epsilon, rel=1e-12)
    assert wrong.max() == pytest.approx(2 * epsilon, rel=1e-12)
    assert actual_epsilon(epsilon, 1.0) == pytest.approx(wrong.max())
    assert actual_epsilon(epsilon, 2.0) == pytest.approx(epsilon)


@pytest.mark.parametrize(("magnitude", "probability"), [(0.1, 0.5), (0.05, 0.9), (1.0, 0.99)])
def test_epsilon_from_a_target_noise_level_round_trips(magnitude, probability):
    epsilon = epsilon_for_output_noise(magnitude, probability)
    b = 2.0 / epsilon
    assert laplace_cdf(magnitude, b) - laplace_cdf(-magnitude, b) == pytest.approx(probability)


class _RecordingGenerator(np.random.Generator):
    """A seeded generator that keeps every Laplace draw, so a test can take the noise back off."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.drawn: list[np.ndarray] = []

    def laplace(self, *args, **kwargs):
        noise = super().laplace(*args, **kwargs)
        self.drawn.append(noise)
        return noise


def test_rows_are_renormalised_to_exact_probability_vectors_before_the_noise():
    # Accepted rows may sum to 1 ± 1e-4; these two are 2.00018 apart in L1, more than the
    # sensitivity 2 that the scale 2/ε covers, unless the mechanism divides by the sums first.
    rows = np.array([[1.00009, 0.0, 0.0], [0.0, 0.99991 + 1.8e-4, 0.0], [0.3, 0.3, 0.40009]])
    assert np.abs(rows[0] - rows[1]).sum() > 2.0 + 1e-4
    rng = _RecordingGenerator(3)
    released = laplace_outputs(rows, 1.0, rng)
    (noise,) = rng.drawn
    inputs = released - noise  # what the noise was added to (exact up to rounding of ~1e-16)
    np.testing.assert_allclose(inputs.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(inputs, rows / rows.sum(axis=1, keepdims=True), rtol=0, atol=1e-12)
    assert np.abs(inputs[0] - inputs[1]).sum() <= 2.0 + 1e-12
    assert noise.shape == rows.shape and np.all(noise != 0)  # the noise was really there


def test_outputs_must_be_probability_vectors():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidInputError, match="sum to one"):
        laplace_outputs(np.array([[0.5, 0.2]]), 1.0, rng)
    with pytest.raises(InvalidInputError, match="non-negative"):
        laplace_outputs(np.array([[1.5, -0.5]]), 1.0, rng)
    with pytest.raises(InvalidInputError, match="greater than 0"):
        laplace_outputs(np.array([[0.5, 0.5]]), 0.0, rng)


def test_cluster_scores_see_structure_and_its_loss():
    rng = np.random.default_rng(1)
    corners = np.eye(4)[rng.integers(0, 4, 800)]
    clean = 0.9 * corners + 0.1 * rng.dirichlet(np.ones(4), size=800)
    noisy = laplace_outputs(clean, 0.2, rng)
    sharp, blurred = cluster_scores(clean, 4, 0), cluster_scores(noisy, 4, 0)
    assert sharp["silhouette"] > 0.8 > blurred["silhouette"]
    assert sharp["calinski_harabasz"] > 10 * blurred["calinski_harabasz"]
    assert sharp["clusters"].shape == (800,)
