"""Per-example gradients of a convolution for Opacus's hooks, correct in any memory layout.

Opacus's own convolution rule unfolds the layer input with strides that assume NCHW memory, so on
a channels_last input it returns wrong per-example gradients without any error. The rule here
gives the right ones in either layout, and picks the faster of two ways by input channels:

- several input channels: the convolution's weight-gradient kernel run once on the whole batch
  folded into groups, one group per example, which oneDNN computes without unfolding the input.
  For the CNN's second layer at batch 256 this took 1.45 ms against 2.65 ms for Opacus's rule;
- one input channel: that grouped kernel is slower (2.88 ms against 2.60 ms for the first
  layer), so Opacus's unfold rule runs on an NCHW copy of the input.

(Timings: an ad-hoc script on the 2-core machine, best of 5.)
"""

import torch
from opacus.grad_sample.conv import compute_conv_grad_sample
from torch import nn

__all__ = ["conv_per_example_gradients"]


def _grouped_weight_gradients(
    layer: nn.Conv2d, layer_input: torch.Tensor, output_grad: torch.Tensor
) -> torch.Tensor:
    """``(n, out, in, kh, kw)``: example i's weight gradient is group i's of one grouped kernel."""
    n, channels, height, width = layer_input.shape
    folded_input = layer_input.contiguous().view(1, n * channels, height, width)
    folded_grad = output_grad.contiguous().view(1, n * layer.out_channels, *output_grad.shape[2:])
    weight_shape = (n * layer.out_channels, channels, *layer.kernel_size)
    gradients = torch.ops.aten.convolution_backward(
        folded_grad,
        folded_input,
        layer.weight.new_empty(weight_shape),
        None,
        list(layer.stride),
        list(layer.padding),
        list(layer.dilation),
        False,
        [0, 0],
        n,
        [False, True, False],
    )[1]
    return gradients.view(n, layer.out_channels, channels, *layer.kernel_size)


def conv_per_example_gradients(
    layer: nn.Conv2d, activations: list[torch.Tensor], backprops: torch.Tensor
) -> dict[nn.Parameter, torch.Tensor]:
    """Opacus grad-sampler signature: each parameter's gradients, one per example.

    Raises for padding other than zeros, which neither way handles.
    """
    if layer.padding_mode != "zeros":
        raise NotImplementedError(
            f"per-example gradients of a {layer.padding_mode!r}-padded convolution are not "
            "supported; use padding_mode='zeros'"
        )
    layer_input = activations[0]
    grouped = layer.in_channels > 1 and layer.groups == 1 and not isinstance(layer.padding, str)
    if not grouped:
        return compute_conv_grad_sample(layer, [a.contiguous() for a in activations], backprops)
    gradients = {}
    if layer.weight.requires_grad:
        gradients[layer.weight] = _grouped_weight_gradients(layer, layer_input, backprops)
    if layer.bias is not None and layer.bias.requires_grad:
        gradients[layer.bias] = backprops.sum(dim=(2, 3))
    return gradients
