"""A training where one layer gets a gradient only every other step: for the optimisers' tests."""

from collections.abc import Callable, Iterable

import torch
from torch import nn


def trained_with_gaps(make: Callable[[Iterable[nn.Parameter]], object]) -> list[torch.Tensor]:
    """Two layers after six steps of ``make(params)``; the first has no gradient at even steps.

    An optimiser must leave a parameter without a gradient as torch's optimisers leave it (no
    step, its state kept), which is what comparing two optimisers' results here checks.
    """
    torch.manual_seed(0)
    first, second = nn.Linear(4, 4), nn.Linear(4, 2)
    optimiser = make([*first.parameters(), *second.parameters()])
    x = torch.randn(8, 4)
    for step in range(6):
        optimiser.zero_grad(set_to_none=True)
        hidden = first(x) if step % 2 else first(x).detach()
        second(hidden).sum().backward()
        optimiser.step()
    return [p.detach().clone() for p in (*first.parameters(), *second.parameters())]
