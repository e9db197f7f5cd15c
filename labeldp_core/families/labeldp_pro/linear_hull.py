"""The denoiser's hull for multinomial logistic regression, in closed form.

For one linear layer ``z = W x + b`` and the loss ``l(x, k) = -log softmax(z)_k``, the gradient
of ``l(x_i, k)`` with respect to ``(W, b)`` is ``(p_i - e_k)`` times ``(x_i, 1)``, ``p_i`` the
model's probabilities on ``x_i``: its norm is ``||p_i - e_k|| sqrt(||x_i||^2 + 1)``, ``G w`` is
one product of the weighted ``(p_i - e_k)`` rows with the images, and ``G^T v`` one product of
the images with ``v``'s weights (``(p_i - e_k) . (V x_i + c)``). These are the products
:func:`~labeldp_core.families.labeldp_pro.denoiser.hull_map` computes for any network with
``torch.func`` (vector-Jacobian and Jacobian-vector products, per-example Jacobians for the
norms), in a few matrix products instead: LabelDP-Pro's recipes on digits and Fashion-MNIST
train logistic regression, where those transforms cost most of a training step. Nothing here
reads a label.
"""

import torch
from torch import nn
from torch.nn import functional

from labeldp_core.families.labeldp_pro.projection import LinearMap

__all__ = ["linear_hull_map", "only_linear_layer"]


def only_linear_layer(model: nn.Module) -> nn.Linear | None:
    """The model's one linear layer, if it is flattening then that layer (logistic), else None."""
    if not isinstance(model, nn.Sequential) or len(model) == 0:
        return None
    *before, last = model
    if not isinstance(last, nn.Linear) or last.bias is None:
        return None
    return last if all(isinstance(m, nn.Flatten) for m in before) else None


def linear_hull_map(
    layer: nn.Linear, images: torch.Tensor, clip: float, joint: bool
) -> tuple[LinearMap, int]:
    """``(G w, G^T v)`` and G's column count for the logistic model ``layer`` on ``images``.

    The same map as :func:`~labeldp_core.families.labeldp_pro.denoiser.hull_map`: columns are
    the clipped per-class gradients in the order of ``named_parameters`` (weight, then bias),
    divided by the public batch's size unless ``joint``. Both products take leading dimensions.
    """
    x = images.flatten(1).detach()
    weight, bias = layer.weight.detach(), layer.bias.detach()
    with torch.no_grad():
        p = functional.softmax(x @ weight.T + bias, dim=1)
    n, classes = p.shape
    # ||p_i - e_k||^2 = ||p_i||^2 - 2 p_ik + 1, times ||(x_i, 1)||^2.
    squares = (p.square().sum(1, keepdim=True) - 2 * p + 1).clamp_min(0)
    norms = (squares * (x.square().sum(1, keepdim=True) + 1)).sqrt()
    scale = (clip / norms.clamp_min(1e-12)).clamp(max=1.0)
    if not joint:
        scale = scale / n
    split = weight.numel()

    def forward(weights: torch.Tensor) -> torch.Tensor:
        a = weights.reshape(*weights.shape[:-1], n, classes) * scale
        rows = a.sum(-1, keepdim=True) * p - a
        grad_weight = rows.transpose(-1, -2) @ x
        return torch.cat([grad_weight.flatten(-2), rows.sum(-2)], dim=-1)

    def adjoint(vector: torch.Tensor) -> torch.Tensor:
        tangent = vector[..., :split].reshape(*vector.shape[:-1], classes, x.shape[1])
        change = x @ tangent.transpose(-1, -2) + vector[..., split:].unsqueeze(-2)
        along = (change * p).sum(-1, keepdim=True) - change
        return (along * scale).flatten(-2)

    return (forward, adjoint), n * classes
