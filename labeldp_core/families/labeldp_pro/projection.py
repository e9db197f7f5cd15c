"""The ALTCONV denoiser's core: project a vector onto a convex hull given only matrix-free products.

The hull is ``{G w : w in the simplex}`` for a d x m matrix ``G`` that is never formed: the caller
passes ``forward(w) = G w`` and ``adjoint(v) = G^T v`` (for a network, a vector-Jacobian and a
Jacobian-vector product). Projected gradient descent on the simplex weights minimises
``||G w - g||^2 / 2`` with step ``1 / L``, ``L`` the largest eigenvalue of ``G^T G`` found by
power iteration; the simplex projection is the sort-based one of Duchi et al. 2008. Every
function works on a batch of independent problems (leading dimensions), which the audit uses.
:func:`smooth_weights` is the paper's coefficient smoothing (Ghazi et al. 2024, Section 3.3).
"""

from collections.abc import Callable

import torch

__all__ = [
    "LinearMap",
    "lipschitz_constant",
    "project_onto_hull",
    "project_onto_simplex",
    "smooth_weights",
]

#: ``(forward, adjoint)``: w (..., m) -> G w (..., d) and v (..., d) -> G^T v (..., m).
LinearMap = tuple[Callable[[torch.Tensor], torch.Tensor], Callable[[torch.Tensor], torch.Tensor]]

#: Power iterations for the step size, and the safety margin on the eigenvalue they find.
_POWER_ITERATIONS = 8
_MARGIN = 1.25


def project_onto_simplex(v: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of each row of ``v`` (last dimension) onto the probability simplex.

    >>> project_onto_simplex(torch.tensor([2.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    m = v.shape[-1]
    ordered, _ = torch.sort(v, dim=-1, descending=True)
    cumulative = ordered.cumsum(dim=-1) - 1
    ranks = torch.arange(1, m + 1, dtype=v.dtype, device=v.device)
    support = (ordered - cumulative / ranks > 0).sum(dim=-1, keepdim=True)
    threshold = cumulative.gather(-1, support - 1) / support.to(v.dtype)
    return torch.clamp(v - threshold, min=0.0)


def lipschitz_constant(
    linear: LinearMap, shape: tuple[int, ...], dtype: torch.dtype
) -> torch.Tensor:
    """An estimate, with a margin, of the largest eigenvalue of ``G^T G`` per problem."""
    forward, adjoint = linear
    # A start with no symmetry (all-ones is orthogonal to G^T G's top eigenvector for a hull
    # of opposite points).
    w = torch.linspace(1.0, 2.0, shape[-1], dtype=dtype).expand(shape)
    estimate = torch.ones(shape[:-1], dtype=dtype)
    for _ in range(_POWER_ITERATIONS):
        w = w / w.norm(dim=-1, keepdim=True).clamp_min(1e-30)
        image = adjoint(forward(w))
        estimate = (image * w).sum(dim=-1)
        w = image
    return _MARGIN * estimate.clamp_min(1e-30)


def project_onto_hull(
    target: torch.Tensor,
    linear: LinearMap,
    m: int,
    steps: int,
    blocks: int = 1,
    learning_rate: float | None = None,
    accelerated: bool = False,
    start: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The point of ``{G w}`` nearest ``target``, by ``steps`` PGD steps on the weights ``w``.

    With ``blocks`` 1 the weights lie on one simplex and ``{G w}`` is the convex hull of ``G``'s
    columns; with ``blocks`` b each of b consecutive groups of m / b weights lies on its own
    simplex, and ``{G w}`` is the sum of b hulls (LabelDP-Pro: one simplex of class weights per
    public example, i.e. every soft labelling of the batch).

    Args:
        target: the vectors to project, shape (..., d).
        linear: ``(forward, adjoint)`` of ``G`` (see :data:`LinearMap`).
        m: the number of weights (columns of ``G``), a multiple of ``blocks``.
        steps: projected gradient steps on the simplex weights, starting from uniform weights.
        blocks: the number of simplices the weights are split into.
        learning_rate: ``eta`` of the paper's update ``w - 2 eta G^T (G w - g)`` (its Appendix
            C); ``None`` takes the step ``1 / L`` (``2 eta = 1 / L``), which needs no tuning.
        accelerated: Nesterov's accelerated projected gradient (FISTA, Beck and Teboulle 2009):
            each step is taken from an extrapolation of the last two iterates, which converges
            as 1 / k^2 instead of 1 / k; every iterate still lies on the simplices.
        start: the first weights (..., m), each block on its simplex; ``None``: uniform ones.

    Returns:
        The projection ``G w`` (..., d) and its weights ``w`` (..., m), each block on a simplex.
    """
    forward, adjoint = linear
    shape = (*target.shape[:-1], m)
    blocked = (*target.shape[:-1], blocks, m // blocks)
    if learning_rate is None:
        step = 1.0 / lipschitz_constant(linear, shape, target.dtype).unsqueeze(-1)
    else:
        step = torch.tensor(2.0 * learning_rate, dtype=target.dtype)
    weights = torch.full(shape, blocks / m, dtype=target.dtype) if start is None else start
    point = weights
    for k in range(steps):
        moved = point - step * adjoint(forward(point) - target)
        previous, weights = weights, project_onto_simplex(moved.reshape(blocked)).reshape(shape)
        # The extrapolated point is an affine (not convex) mix: only the iterates are weights.
        point = weights + (k / (k + 3)) * (weights - previous) if accelerated else weights
    return forward(weights), weights


def smooth_weights(weights: torch.Tensor, smoothing: float, blocks: int = 1) -> torch.Tensor:
    """``smoothing * weights + (1 - smoothing) * uniform``: the paper's coefficient smoothing.

    LabelDP-Pro (Section 3.3) mixes the projection's simplex weights with uniform weights over
    every vertex, so that a noisy projection cannot put all its weight on a wrong class (the
    cross-entropy's gradients are unbounded there); it reads as label smoothing of a one-hot
    labelling. Each block of ``weights`` stays on its simplex: the result is a convex combination
    of two points of it.

    >>> smooth_weights(torch.tensor([1.0, 0.0]), 0.75).tolist()
    [0.875, 0.125]
    """
    uniform = torch.full_like(weights, blocks / weights.shape[-1])
    return smoothing * weights + (1.0 - smoothing) * uniform
