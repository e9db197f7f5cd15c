"""SGD with momentum stepped by torch's functional SGD: ``torch.optim.SGD``'s numbers exactly.

The first ``torch.optim`` optimiser of a process imports ``torch._dynamo`` (its
``add_param_group`` and ``zero_grad`` are wrapped to disable it, and every ``step`` runs
``_use_grad``, which calls ``torch._dynamo.graph_break``): 1.3 to 2.1 s of CPU on the 2-core
machine, paid by every process that trains with DP-SGD, for nothing: the project never compiles a
model. :class:`DirectSGD` keeps SGD's state as ``torch.optim.SGD`` keeps it (a
``momentum_buffer`` per parameter in ``state``, made from its first gradient) and steps it with
the function ``torch.optim.SGD.step`` calls, ``torch.optim.sgd.sgd``, with the same arguments,
under ``torch.no_grad`` as torch steps it. ``tests/training/test_direct_sgd.py`` checks the
parameters after many steps against torch's optimiser, bit for bit.

Opacus's DP optimisers wrap it as they wrap torch's: they never call an optimiser's
``__init__``; they read and write its ``param_groups``, ``state`` and ``defaults`` and call its
``zero_grad`` and ``step``.
"""

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import torch
from torch.optim.sgd import sgd

__all__ = ["DirectSGD"]


class DirectSGD:
    """SGD with torch's defaults (no dampening, weight decay or Nesterov), and ``momentum``.

    Args:
        params: the parameters to train.
        learning_rate: the step size.
        momentum: the momentum factor (0: plain SGD, no buffers).
    """

    def __init__(
        self, params: Iterable[torch.nn.Parameter], learning_rate: float, momentum: float = 0.0
    ) -> None:
        self.defaults: dict[str, Any] = {
            "lr": float(learning_rate),
            "momentum": float(momentum),
            "dampening": 0.0,
            "weight_decay": 0.0,
            "nesterov": False,
            "maximize": False,
            "foreach": None,
            "fused": None,
        }
        self.param_groups: list[dict[str, Any]] = [{"params": list(params), **self.defaults}]
        self.state: defaultdict[torch.Tensor, dict[str, Any]] = defaultdict(dict)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient, or set it to zeros, as torch's optimisers do."""
        for group in self.param_groups:
            for parameter in group["params"]:
                if parameter.grad is None:
                    continue
                if set_to_none:
                    parameter.grad = None
                else:
                    parameter.grad.detach_()
                    parameter.grad.zero_()

    @torch.no_grad()
    def step(self, closure: None = None) -> None:
        """One SGD step of every parameter that has a gradient, as ``torch.optim.SGD`` takes it."""
        if closure is not None:
            raise ValueError("DirectSGD takes no closure")
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            momentum = group["momentum"] != 0
            buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum else []
            sgd(
                params,
                [p.grad for p in params],
                buffers,
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                lr=group["lr"],
                dampening=group["dampening"],
                nesterov=group["nesterov"],
                maximize=group["maximize"],
                has_sparse_grad=False,
                foreach=group["foreach"],
                fused=group["fused"],
            )
            if momentum:
                for parameter, buffer in zip(params, buffers, strict=True):
                    self.state[parameter]["momentum_buffer"] = buffer
