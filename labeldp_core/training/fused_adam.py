"""Adam's fused CPU kernel called directly: ``torch.optim.Adam(fused=True)``'s numbers exactly.

``torch.optim.Adam`` wraps its kernel in Python that the small models pay for on every step: a
profiler record, the step hooks, ``_use_grad`` (which imports ``torch._dynamo`` and calls its
``graph_break``), and a grouping of the tensors by device and type. The first optimiser of a
process also imports ``torch._dynamo`` (``add_param_group`` and ``zero_grad`` are wrapped to
disable it): 1.8 to 2.1 s on the 2-core machine, paid by every command that trains. None of it
changes a number here: the project never compiles a model.

:class:`FusedAdam` keeps Adam's state as ``torch.optim.Adam`` keeps it with ``fused=True`` (a
float32 step count per parameter, first and second moments of the parameter's shape and memory
layout, made at a parameter's first gradient), and steps it with the same two calls, the steps'
``torch._foreach_add_`` and ``torch._fused_adam_`` with the same arguments, on the parameters
that have a gradient. ``tests/training/test_fused_adam.py`` checks every model's parameters
after many steps against torch's optimiser, bit for bit. DP-SGD's Adam keeps torch's unfused
Adam (:func:`~.loop.adam`): Opacus sets NCHW gradients on channels_last weights, which the fused
kernel would pair with the wrong weights; its SGD is :mod:`~labeldp_core.training.direct_sgd`.
"""

from collections.abc import Iterable

import torch

__all__ = ["FusedAdam"]


class FusedAdam:
    """Adam with torch's defaults (betas 0.9 and 0.999, eps 1e-8, no weight decay), fused.

    Args:
        params: the parameters to train.
        learning_rate: the step size.
    """

    def __init__(self, params: Iterable[torch.nn.Parameter], learning_rate: float) -> None:
        self.params = list(params)
        self.learning_rate = float(learning_rate)
        self._state: dict[torch.nn.Parameter, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (``set_to_none`` is always true here)."""
        if not set_to_none:
            raise ValueError("FusedAdam only forgets gradients (set_to_none=True)")
        for parameter in self.params:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step of every parameter that has a gradient, as torch's fused Adam takes it."""
        params, grads, steps, first, second = [], [], [], [], []
        for parameter in self.params:
            if parameter.grad is None:
                continue
            state = self._state.get(parameter)
            if state is None:
                state = self._state[parameter] = (
                    torch.zeros((), dtype=torch.float32, device=parameter.device),
                    torch.zeros_like(parameter, memory_format=torch.preserve_format),
                    torch.zeros_like(parameter, memory_format=torch.preserve_format),
                )
            params.append(parameter)
            grads.append(parameter.grad)
            steps.append(state[0])
            first.append(state[1])
            second.append(state[2])
        if not params:
            return
        torch._foreach_add_(steps, 1)
        torch._fused_adam_(
            params,
            grads,
            first,
            second,
            [],
            steps,
            amsgrad=False,
            lr=self.learning_rate,
            beta1=0.9,
            beta2=0.999,
            weight_decay=0.0,
            eps=1e-8,
            maximize=False,
            grad_scale=None,
            found_inf=None,
        )
