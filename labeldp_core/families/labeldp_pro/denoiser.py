"""LabelDP-Pro's ALTCONV denoiser for a network: the set of label-free mean gradients.

For public examples ``x_1..x_n2`` (features only: label DP treats them as known) and every class
``k``, the clipped gradient ``c_ik grad l(theta, (x_i, k))`` over n2 is a column of a d x (n2 K)
matrix ``G``. With one simplex of class weights per example, ``{G w}`` is the set of the batch's
mean clipped gradients under every soft labelling, where the clean mean gradient lies. ``G`` is
never stored: ``G w`` is one vector-Jacobian product of the n2 x K loss matrix (the cotangent
``w`` scaled by the clip factors) and ``G^T v`` one Jacobian-vector product (:mod:`torch.func`).
Only the n2 K clip factors need every column's norm, computed a few examples at a time with
``vmap`` over ``jacrev``. Logistic regression's products have a closed form
(:mod:`~labeldp_core.families.labeldp_pro.linear_hull`). Nothing here reads a label.
"""

from collections.abc import Mapping

import torch
from torch import nn
from torch.func import functional_call, jacrev, jvp, vjp, vmap
from torch.nn import functional

from labeldp_core.families.labeldp_pro.linear_hull import linear_hull_map, only_linear_layer
from labeldp_core.families.labeldp_pro.projection import (
    LinearMap,
    project_onto_hull,
    smooth_weights,
)

__all__ = [
    "HULLS",
    "PROJECTION_STARTS",
    "SMOOTHING_TARGETS",
    "denoise",
    "flatten",
    "hull_map",
    "network_hull_map",
    "unflatten",
]

#: Public examples whose per-class gradients are held at once to compute their norms.
_NORM_CHUNK = 16


def flatten(tensors: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The tensors of a parameter dictionary as one vector, in the dictionary's order."""
    return torch.cat([t.reshape(-1) for t in tensors.values()])


def unflatten(vector: torch.Tensor, like: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The inverse of :func:`flatten` for tensors shaped as ``like``'s."""
    out, start = {}, 0
    for name, tensor in like.items():
        out[name] = vector[start : start + tensor.numel()].reshape(tensor.shape)
        start += tensor.numel()
    return out


def _class_losses(model: nn.Module, params: dict[str, torch.Tensor], images: torch.Tensor):
    """The n x K matrix of losses l(theta, (x_i, k)) for every class k: no label is read."""
    return -functional.log_softmax(functional_call(model, params, (images,)), dim=1)


def _column_norms(model: nn.Module, params: dict[str, torch.Tensor], images: torch.Tensor):
    """||grad l(theta, (x_i, k))|| for every public example i and class k, shape (n2, K)."""

    def losses_of_one(p: dict[str, torch.Tensor], image: torch.Tensor) -> torch.Tensor:
        return _class_losses(model, p, image.unsqueeze(0))[0]

    per_example = vmap(jacrev(losses_of_one), in_dims=(None, 0))
    norms = []
    for start in range(0, images.shape[0], _NORM_CHUNK):
        jacobians = per_example(params, images[start : start + _NORM_CHUNK])
        squares = sum(j.flatten(2).square().sum(dim=2) for j in jacobians.values())
        norms.append(squares.sqrt())
    return torch.cat(norms)


def hull_map(
    model: nn.Module, images: torch.Tensor, clip: float, joint: bool = False
) -> tuple[LinearMap, int]:
    """``(G w, G^T v)`` and G's column count, for the per-class gradients of ``images``.

    The columns are the clipped per-class gradients, divided by n2 unless ``joint`` (the
    per-example hull takes one simplex per example, so its points are means over the batch; the
    joint hull takes one simplex over every column, so its points are convex combinations of the
    gradients themselves). Logistic regression takes the closed form of
    :mod:`~labeldp_core.families.labeldp_pro.linear_hull`, any other network
    :func:`network_hull_map`.
    """
    layer = only_linear_layer(model)
    if layer is not None:
        return linear_hull_map(layer, images, clip, joint)
    return network_hull_map(model, images, clip, joint)


def network_hull_map(
    model: nn.Module, images: torch.Tensor, clip: float, joint: bool = False
) -> tuple[LinearMap, int]:
    """:func:`hull_map` for any network, by ``torch.func``'s vector-Jacobian products."""
    params = {name: p.detach() for name, p in model.named_parameters()}
    scale = (clip / _column_norms(model, params, images).clamp_min(1e-12)).clamp(max=1.0)
    losses, pullback = vjp(lambda p: _class_losses(model, p, images), params)

    if not joint:
        scale = scale / images.shape[0]  # the batch's mean gradient

    def forward(weights: torch.Tensor) -> torch.Tensor:
        return flatten(pullback(weights.reshape(losses.shape) * scale)[0])

    def adjoint(vector: torch.Tensor) -> torch.Tensor:
        tangent = unflatten(vector, params)
        _, change = jvp(lambda p: _class_losses(model, p, images), (params,), (tangent,))
        return (change * scale).reshape(-1)

    return (forward, adjoint), losses.numel()


#: What the projection is smoothed towards: the paper's uniform weights, or the noisy gradient.
SMOOTHING_TARGETS = ("uniform", "noisy")
#: The hull: one simplex over all n2 K per-class gradients (the paper's), or one per example.
HULLS = ("per_example", "joint")
#: Where the projection's weights start: uniform ones, or the model's predicted probabilities.
PROJECTION_STARTS = ("uniform", "predicted")


def _start_weights(model: nn.Module, images: torch.Tensor, start: str, joint: bool):
    """The projection's first weights: ``None`` (uniform) or the model's softmax on ``images``.

    The predicted start reads no label. Without clipping, example i's gradient under class
    weights w_i is J_i^T (p_i - w_i), so w_i = p_i is the zero gradient: the projection then
    starts from no step at all, where uniform weights start from the gradient towards uniform
    predictions, which points against learning on a partly trained model.
    """
    if start == "uniform":
        return None
    with torch.no_grad():
        probabilities = functional.softmax(model(images), dim=1)
    if joint:
        return probabilities.reshape(-1) / images.shape[0]
    return probabilities.reshape(-1)


def denoise(
    noisy: torch.Tensor,
    model: nn.Module,
    public_images: torch.Tensor,
    clip: float,
    smoothing: float,
    steps: int,
    towards: str = "uniform",
    hull: str = "per_example",
    learning_rate: float | None = None,
    accelerated: bool = False,
    start: str = "uniform",
) -> tuple[torch.Tensor, torch.Tensor]:
    """The step LabelDP-Pro takes, and the simplex weights of its projection part.

    ``hull="joint"`` is the paper's hull (its Section 3.2 and Appendix C): one simplex over all
    n2 K per-class gradients; ``"per_example"`` takes one simplex of class weights per public
    example (every soft labelling's mean gradient, a subset of the joint hull). The projection
    runs ``steps`` PGD steps at ``learning_rate``, ``accelerated`` or not (see
    :func:`~labeldp_core.families.labeldp_pro.projection.project_onto_hull`).
    ``towards="uniform"`` is the paper's coefficient smoothing (Section 3.3): the projection's
    simplex weights ``w`` become ``smoothing * w + (1 - smoothing) * uniform`` and the step is
    ``G`` times them, a point of the hull (smoothing 0 is the mean of every per-class gradient,
    the same point for both hulls, which reads no label). ``"noisy"`` is this project's first
    reading, ``smoothing * G w + (1 - smoothing) * noisy``. ``start`` is where the weights
    start (:func:`_start_weights`). The hull is the model's in evaluation mode (no dropout), so
    it is one fixed set per step.
    """
    if towards not in SMOOTHING_TARGETS:
        raise ValueError(f"towards must be one of {SMOOTHING_TARGETS}, not {towards!r}")
    if hull not in HULLS:
        raise ValueError(f"hull must be one of {HULLS}, not {hull!r}")
    if start not in PROJECTION_STARTS:
        raise ValueError(f"start must be one of {PROJECTION_STARTS}, not {start!r}")
    training = model.training
    model.eval()
    try:
        joint = hull == "joint"
        linear, columns = hull_map(model, public_images, clip, joint)
        blocks = 1 if joint else public_images.shape[0]
        first = _start_weights(model, public_images, start, joint)
        projected, weights = project_onto_hull(
            noisy, linear, columns, steps, blocks, learning_rate, accelerated, first
        )
        if towards == "noisy":
            return smoothing * projected + (1.0 - smoothing) * noisy, weights
        smoothed = smooth_weights(weights, smoothing, blocks)
        return linear[0](smoothed), smoothed
    finally:
        model.train(training)
