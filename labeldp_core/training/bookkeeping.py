"""Clipped per-example gradient sums in one backward pass: Opacus's ghost norms plus book-keeping.

Opacus's fast gradient clipping (``GradSampleModuleFastGradientClipping``) finds every example's
gradient norm during the backward pass; for a dense layer it never forms the per-example
gradients, because example i's gradient g_i a_iᵀ (output gradient times input) has norm
|g_i| |a_i| ("ghost clipping"). Opacus then runs a second backward pass on the loss re-weighted
by the clipping factors c_i to get the clipped sum. This module skips that second pass, as the
book-keeping method of Bu, Wang, Zha and Karypis (ICML 2023) does, and takes each layer's clipped
sum from what the hooks already hold:

- a dense layer, from its inputs A and output gradients G: sum_i c_i g_i a_iᵀ = (c ⊙ G)ᵀ A;
- a convolution, from the per-example gradients it formed for its norms (16 x 64 and 32 x 256
  numbers an example for the CNN, by :func:`conv_per_example_gradients`): their c-weighted sum.

The backward pass itself asks autograd for the biases' gradients only: the output gradients
still flow through every layer (the hooks see them all), but autograd skips the unclipped weight
gradients that would be thrown away. The noise, the scaling by the expected batch size and the
step stay Opacus's (``DPOptimizerFastGradientClipping``).
"""

import torch
from opacus.grad_sample.grad_sample_module_fast_gradient_clipping import (
    GradSampleModuleFastGradientClipping,
)
from torch import nn

from labeldp_core.training.per_example import conv_per_example_gradients

__all__ = ["BookkeepingModule"]

_LAYERS = (nn.Linear, nn.Conv2d)

Gradients = dict[nn.Parameter, torch.Tensor]


def _dense_clipped_sum(
    layer: nn.Linear, layer_input: torch.Tensor, output_grad: torch.Tensor, factors: torch.Tensor
) -> Gradients:
    """Sum of the dense layer's example gradients, example i's weighted by ``factors[i]``."""
    weighted = (output_grad * factors.view(-1, *(1,) * (output_grad.dim() - 1))).reshape(
        -1, layer.out_features
    )
    sums = {}
    if layer.weight.requires_grad:  # a frozen weight gets no gradient, so the optimiser skips it
        sums[layer.weight] = weighted.T @ layer_input.reshape(-1, layer.in_features)
    if layer.bias is not None and layer.bias.requires_grad:
        sums[layer.bias] = weighted.sum(dim=0)
    return sums


class BookkeepingModule(GradSampleModuleFastGradientClipping):
    """Opacus's ghost-clipping hooks that also keep what each layer's clipped sum needs.

    :meth:`backward_clipped`, called instead of ``loss.backward()`` on a mean loss, puts the
    sum of the batch's clipped per-example gradients in every parameter's ``.grad``, as
    Opacus's second backward pass would.
    """

    def __init__(self, model: nn.Module, clip: float) -> None:
        unsupported = {
            type(module).__name__
            for module in model.modules()
            if any(p.requires_grad for p in module.parameters(recurse=False))
            and not isinstance(module, _LAYERS)
        }
        if unsupported:
            raise NotImplementedError(
                f"book-keeping clipping handles dense and convolution layers only, not "
                f"{', '.join(sorted(unsupported))}"
            )
        super().__init__(
            model,
            batch_first=True,
            loss_reduction="mean",
            max_grad_norm=clip,
            use_ghost_clipping=True,
        )
        # An instance's own table, so that the convolution rule can keep what it computes.
        self.GRAD_SAMPLERS = {**self.GRAD_SAMPLERS, nn.Conv2d: self._kept_conv_gradients}
        self._dense_inputs: dict[nn.Module, torch.Tensor] = {}
        self._dense_output_grads: dict[nn.Module, torch.Tensor] = {}
        self._conv_gradients: dict[nn.Module, Gradients] = {}
        layers = [m for m in model.modules() if isinstance(m, _LAYERS)]
        biases = [m.bias for m in layers if m.bias is not None and m.bias.requires_grad]
        self._backward_inputs = biases if len(biases) == len(layers) else None

    def _kept_conv_gradients(
        self, layer: nn.Conv2d, activations: list[torch.Tensor], backprops: torch.Tensor
    ) -> Gradients:
        if layer in self._conv_gradients:  # Opacus would add both calls' gradients for the norm
            raise NotImplementedError(
                "book-keeping clipping cannot use a convolution twice in one forward pass"
            )
        gradients = conv_per_example_gradients(layer, activations, backprops)
        self._conv_gradients[layer] = gradients
        return gradients

    def capture_activations_hook(
        self, module: nn.Module, forward_input: list[torch.Tensor], forward_output: torch.Tensor
    ) -> None:
        """Opacus's forward hook, also keeping a dense layer's input for its clipped sum."""
        super().capture_activations_hook(module, forward_input, forward_output)
        recording = self.hooks_enabled and module.training and torch.is_grad_enabled()
        if recording and isinstance(module, nn.Linear):
            self._dense_inputs[module] = forward_input[0].detach()

    def capture_backprops_hook(
        self,
        module: nn.Module,
        forward_input: torch.Tensor,
        forward_output: torch.Tensor,
        loss_reduction: str,
        batch_first: bool,
    ) -> None:
        """Opacus's backward hook (the norms), also keeping a dense layer's output gradient."""
        super().capture_backprops_hook(
            module,
            forward_input,
            forward_output,
            loss_reduction=loss_reduction,
            batch_first=batch_first,
        )
        if self.hooks_enabled and isinstance(module, nn.Linear):
            self._dense_output_grads[module] = forward_output[0].detach()

    def backward_clipped(self, loss: torch.Tensor, batch_size: int) -> None:
        """Set every ``.grad`` to the sum over the batch of the clipped example gradients.

        ``loss`` is the batch's mean loss, so a dense layer's output gradients are (example loss
        gradient) / batch_size, hence that factor; the kept convolution gradients are per
        example already. If a trainable parameter would get no clipped sum, every ``.grad``
        is cleared before the error, so that no unclipped gradient is left for an optimiser.
        """
        loss.backward(inputs=self._backward_inputs)
        covered = {
            id(p)
            for layer in (*self._dense_output_grads, *self._conv_gradients)
            for p in layer.parameters()
            if p.requires_grad
        }
        missed = [p for p in self.trainable_parameters if id(p) not in covered]
        if missed:
            for parameter in self.trainable_parameters:
                parameter.grad = None
            self._forget_step()
            raise RuntimeError(f"{len(missed)} parameters got no clipped gradient this step")
        factors = self.get_clipping_coef()
        sums: Gradients = {}
        for layer, output_grad in self._dense_output_grads.items():
            layer_input = self._dense_inputs[layer]
            sums |= _dense_clipped_sum(layer, layer_input, output_grad, factors * batch_size)
        for per_example in self._conv_gradients.values():
            sums |= {p: torch.einsum("n,n...->...", factors, g) for p, g in per_example.items()}
        self._forget_step()
        for parameter, gradient in sums.items():
            parameter.grad = gradient

    def _forget_step(self) -> None:
        for container in (self._dense_inputs, self._dense_output_grads, self._conv_gradients):
            container.clear()
