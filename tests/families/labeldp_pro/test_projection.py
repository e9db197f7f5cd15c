"""The matrix-free hull projection against an explicit matrix and a brute-force simplex QP."""

import numpy as np
import pytest
import torch
from scipy import optimize

from labeldp_core.families.labeldp_pro.projection import (
    project_onto_hull,
    project_onto_simplex,
    smooth_weights,
)


def _explicit(matrix: torch.Tensor):
    return (lambda w: w @ matrix.T, lambda v: v @ matrix)


#: Step budgets. Each problem here is solved to the brute-force QP's own precision long before its
#: budget ends; the budget is the steps that took, times 3 to 10 (measured: the five small
#: problems at 1e-6 or nearer after 100 steps and at their floor after 300; a point of the hull
#: within 5e-9 of itself after 500; the blocked problem at its floor, 9.4e-8, after 100; the
#: paper's fixed step at 1e-9 or nearer after 100 on each seed; FISTA on 30 x 40 within 1.2e-6
#: after 300). Each step costs about 60 us of CPU, so the 20,000 and 5,000 step budgets of
#: before took 6 s of the module's CPU for nothing a test asserts.
STEPS = 1_000
INSIDE_STEPS = 2_000


def _brute_force(matrix: np.ndarray, target: np.ndarray) -> np.ndarray:
    """min ||G w - g|| over the simplex by SciPy's SLSQP (a different solver)."""
    m = matrix.shape[1]
    result = optimize.minimize(
        lambda w: 0.5 * np.sum((matrix @ w - target) ** 2),
        np.full(m, 1.0 / m),
        jac=lambda w: matrix.T @ (matrix @ w - target),
        bounds=[(0.0, 1.0)] * m,
        constraints=({"type": "eq", "fun": lambda w: w.sum() - 1.0},),
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return matrix @ result.x


@pytest.mark.parametrize("seed", range(5))
def test_projection_matches_a_brute_force_qp_on_small_sizes(seed):
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(6, 8))
    target = rng.normal(size=6) * 3
    explicit = torch.tensor(matrix, dtype=torch.float64)
    projected, weights = project_onto_hull(torch.tensor(target), _explicit(explicit), 8, STEPS)
    assert weights.min() >= 0 and float(weights.sum()) == pytest.approx(1.0, abs=1e-12)
    # The projection is unique (a strictly convex objective in G w): the points agree.
    np.testing.assert_allclose(projected.numpy(), _brute_force(matrix, target), atol=1e-4)


def test_a_point_of_the_hull_projects_onto_itself():
    rng = np.random.default_rng(0)
    matrix = torch.tensor(rng.normal(size=(5, 7)))
    inside = matrix @ torch.tensor(rng.dirichlet(np.ones(7)))
    projected, _ = project_onto_hull(inside, _explicit(matrix), 7, steps=INSIDE_STEPS)
    np.testing.assert_allclose(projected.numpy(), inside.numpy(), atol=1e-6)


def test_batched_problems_are_solved_independently():
    rng = np.random.default_rng(1)
    matrix = torch.tensor(rng.normal(size=(4, 5)))
    targets = torch.tensor(rng.normal(size=(3, 4)))
    batched, _ = project_onto_hull(targets, _explicit(matrix), 5, steps=300)
    for row, target in zip(batched, targets, strict=True):
        alone, _ = project_onto_hull(target, _explicit(matrix), 5, steps=300)
        np.testing.assert_allclose(row.numpy(), alone.numpy(), atol=1e-12)


def test_simplex_projection_is_the_nearest_point_of_the_simplex():
    rng = np.random.default_rng(2)
    for _ in range(20):
        v = rng.normal(size=6) * 2
        projected = project_onto_simplex(torch.tensor(v)).numpy()
        assert projected.min() >= 0 and projected.sum() == pytest.approx(1.0)
        # Optimality: no other point of the simplex is nearer (random candidates).
        others = rng.dirichlet(np.ones(6), size=500)
        assert np.linalg.norm(v - projected) <= np.linalg.norm(v - others, axis=1).min() + 1e-12


def test_blocked_weights_lie_on_one_simplex_per_block_and_match_a_brute_force_qp():
    # Two blocks of three weights: the set is the sum of two triangles' hulls.
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(4, 6))
    target = rng.normal(size=4) * 3
    explicit = torch.tensor(matrix)
    projected, weights = project_onto_hull(
        torch.tensor(target), _explicit(explicit), 6, steps=STEPS, blocks=2
    )
    blocks = weights.reshape(2, 3)
    assert blocks.min() >= 0
    np.testing.assert_allclose(blocks.sum(dim=1).numpy(), [1.0, 1.0], atol=1e-12)
    result = optimize.minimize(
        lambda w: 0.5 * np.sum((matrix @ w - target) ** 2),
        np.full(6, 1.0 / 3),
        bounds=[(0.0, 1.0)] * 6,
        constraints=(
            {"type": "eq", "fun": lambda w: w[:3].sum() - 1.0},
            {"type": "eq", "fun": lambda w: w[3:].sum() - 1.0},
        ),
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    np.testing.assert_allclose(projected.numpy(), matrix @ result.x, atol=1e-4)


def test_smoothed_weights_stay_on_their_simplices_and_mix_in_the_uniform_ones():
    rng = np.random.default_rng(4)
    weights = project_onto_simplex(torch.tensor(rng.normal(size=(3, 5, 4)) * 3)).reshape(3, 20)
    smoothed = smooth_weights(weights, 0.75, blocks=5).reshape(3, 5, 4)
    assert float(smoothed.min()) >= 0.25 / 4 - 1e-12
    np.testing.assert_allclose(smoothed.sum(dim=-1).numpy(), np.ones((3, 5)), atol=1e-12)
    expected = 0.75 * weights.reshape(3, 5, 4) + 0.25 / 4
    np.testing.assert_allclose(smoothed.numpy(), expected.numpy(), atol=1e-12)
    assert torch.equal(smooth_weights(weights, 1.0, blocks=5), weights)


@pytest.mark.parametrize("seed", range(3))
def test_the_papers_fixed_step_update_reaches_the_same_projection(seed):
    rng = np.random.default_rng(10 + seed)
    matrix = rng.normal(size=(6, 8))
    target = rng.normal(size=6) * 3
    explicit = torch.tensor(matrix, dtype=torch.float64)
    # 2 eta below 2 / L (L = ||G||^2): the paper's update w - 2 eta G^T (G w - g) converges.
    eta = 0.4 / float(np.linalg.norm(matrix, 2) ** 2)
    projected, weights = project_onto_hull(
        torch.tensor(target), _explicit(explicit), 8, steps=STEPS, learning_rate=eta
    )
    assert weights.min() >= 0 and float(weights.sum()) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(projected.numpy(), _brute_force(matrix, target), atol=1e-4)


@pytest.mark.parametrize("seed", range(3))
def test_the_accelerated_projection_reaches_the_brute_force_qp_and_gets_nearer_sooner(seed):
    rng = np.random.default_rng(20 + seed)
    matrix = rng.normal(size=(30, 40))
    target = rng.normal(size=30) * 3
    explicit, g = torch.tensor(matrix), torch.tensor(target)
    exact = _brute_force(matrix, target)
    projected, weights = project_onto_hull(g, _explicit(explicit), 40, STEPS, accelerated=True)
    assert weights.min() >= 0 and float(weights.sum()) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(projected.numpy(), exact, atol=1e-4)
    # At a budget of 30 steps, FISTA's iterate is nearer the projection than plain PGD's.
    fast, _ = project_onto_hull(g, _explicit(explicit), 40, 30, accelerated=True)
    plain, _ = project_onto_hull(g, _explicit(explicit), 40, 30)
    assert np.linalg.norm(fast.numpy() - exact) < np.linalg.norm(plain.numpy() - exact)
